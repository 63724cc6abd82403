"""Hard code tasks: dynamic programming, graphs, intervals, small parsers and bit tricks.

Plain data consumed by ``build.py``; see its docstring for the entry format.
"""

_EMPTY_ROWS = "['.' * 9] * "
_PATTERN_BOARD = "[''.join(str((r * 3 + r // 3 + c) % 9 + 1) for c in range(9)) for r in range(9)]"

TASKS = [
    {
        "entry_point": "edit_distance",
        "tags": ["dp", "strings"],
        "doc": r"""
            Return the minimum number of single-character insertions, deletions and
            substitutions needed to turn ``a`` into ``b``.

            >>> edit_distance("kitten", "sitting")
            3
        """,
        "src": r"""
            def edit_distance(a: str, b: str) -> int:
                previous = list(range(len(b) + 1))
                for i, ca in enumerate(a, 1):
                    current = [i]
                    for j, cb in enumerate(b, 1):
                        current.append(min(previous[j] + 1, current[j - 1] + 1,
                                           previous[j - 1] + (ca != cb)))
                    previous = current
                return previous[-1]
        """,
        "visible": ["edit_distance('', '') == 0", "edit_distance('abc', 'abd') == 1"],
        "hidden": [
            "edit_distance('', 'abc') == 3",
            "edit_distance('abc', '') == 3",
            "edit_distance('flaw', 'lawn') == 2",
            "edit_distance('intention', 'execution') == 5",
            "edit_distance('same', 'same') == 0",
            "edit_distance('ab', 'ba') == 2",
            "edit_distance('abcdef', 'azced') == 3",
        ],
    },
    {
        "entry_point": "lcs_length",
        "tags": ["dp", "strings"],
        "doc": r"""
            Return the length of the longest common subsequence of ``a`` and ``b``
            (characters in the same order, not necessarily adjacent).

            >>> lcs_length("abcde", "ace")
            3
        """,
        "src": r"""
            def lcs_length(a: str, b: str) -> int:
                previous = [0] * (len(b) + 1)
                for ca in a:
                    current = [0]
                    for j, cb in enumerate(b, 1):
                        if ca == cb:
                            current.append(previous[j - 1] + 1)
                        else:
                            current.append(max(previous[j], current[j - 1]))
                    previous = current
                return previous[-1]
        """,
        "visible": ["lcs_length('abc', 'def') == 0", "lcs_length('abc', 'abc') == 3"],
        "hidden": [
            "lcs_length('', 'a') == 0",
            "lcs_length('AGGTAB', 'GXTXAYB') == 4",
            "lcs_length('aaaa', 'aa') == 2",
            "lcs_length('abcbdab', 'bdcaba') == 4",
            "lcs_length('x', 'x') == 1",
            "lcs_length('ab' * 100, 'ba' * 100) == 199",
        ],
    },
    {
        "entry_point": "lis_length",
        "tags": ["dp", "binary-search"],
        "doc": r"""
            Return the length of the longest strictly increasing subsequence of
            ``nums``.

            >>> lis_length([10, 9, 2, 5, 3, 7, 101, 18])
            4
        """,
        "src": r"""
            def lis_length(nums: list[int]) -> int:
                from bisect import bisect_left

                tails: list[int] = []
                for x in nums:
                    i = bisect_left(tails, x)
                    if i == len(tails):
                        tails.append(x)
                    else:
                        tails[i] = x
                return len(tails)
        """,
        "visible": ["lis_length([]) == 0", "lis_length([7, 7, 7, 7]) == 1"],
        "hidden": [
            "lis_length([0, 1, 0, 3, 2, 3]) == 4",
            "lis_length([1, 2, 3, 4, 5]) == 5",
            "lis_length([5, 4, 3, 2, 1]) == 1",
            "lis_length([3, 10, 2, 1, 20]) == 3",
            "lis_length([-1, 0, -2, 1]) == 3",
            "lis_length(list(range(300))) == 300",
            "lis_length([2, 2, 3, 3, 4]) == 3",
        ],
    },
    {
        "entry_point": "min_coins",
        "tags": ["dp"],
        "doc": r"""
            Return the fewest coins (each denomination in ``coins`` usable any number
            of times) that add up to ``amount``, or -1 if it cannot be made.

            >>> min_coins([1, 2, 5], 11)
            3
        """,
        "src": r"""
            def min_coins(coins: list[int], amount: int) -> int:
                inf = amount + 1
                best = [0] + [inf] * amount
                for total in range(1, amount + 1):
                    for coin in coins:
                        if coin <= total and best[total - coin] + 1 < best[total]:
                            best[total] = best[total - coin] + 1
                return best[amount] if best[amount] < inf else -1
        """,
        "visible": ["min_coins([2], 3) == -1", "min_coins([1], 0) == 0"],
        "hidden": [
            "min_coins([2], 0) == 0",
            "min_coins([], 5) == -1",
            "min_coins([1, 3, 4], 6) == 2",
            "min_coins([5, 10], 3) == -1",
            "min_coins([186, 419, 83, 408], 6249) == 20",
            "min_coins([7], 14) == 2",
            "min_coins([3, 7], 11) == -1",
        ],
    },
    {
        "entry_point": "coin_ways",
        "tags": ["dp", "math"],
        "doc": r"""
            Count the distinct multisets of coins from ``coins`` (unlimited supply of
            each distinct denomination) whose values sum to ``amount``; order does not
            matter. There is exactly one way to make 0.

            >>> coin_ways([1, 2, 5], 5)
            4
        """,
        "src": r"""
            def coin_ways(coins: list[int], amount: int) -> int:
                ways = [1] + [0] * amount
                for coin in coins:
                    for total in range(coin, amount + 1):
                        ways[total] += ways[total - coin]
                return ways[amount]
        """,
        "visible": ["coin_ways([2], 3) == 0", "coin_ways([10], 10) == 1"],
        "hidden": [
            "coin_ways([1], 0) == 1",
            "coin_ways([], 0) == 1",
            "coin_ways([], 3) == 0",
            "coin_ways([1, 2], 4) == 3",
            "coin_ways([2, 5, 3, 6], 10) == 5",
            "coin_ways([1, 5, 10, 25], 100) == 242",
        ],
    },
    {
        "entry_point": "knapsack",
        "tags": ["dp"],
        "doc": r"""
            0/1 knapsack: each item ``i`` has ``weights[i]`` and ``values[i]`` and can
            be taken at most once. Return the highest total value whose total weight
            does not exceed ``capacity``.

            >>> knapsack([1, 3, 4, 5], [1, 4, 5, 7], 7)
            9
        """,
        "src": r"""
            def knapsack(weights: list[int], values: list[int], capacity: int) -> int:
                best = [0] * (capacity + 1)
                for weight, value in zip(weights, values):
                    for c in range(capacity, weight - 1, -1):
                        best[c] = max(best[c], best[c - weight] + value)
                return best[capacity]
        """,
        "visible": ["knapsack([], [], 10) == 0", "knapsack([5], [10], 4) == 0"],
        "hidden": [
            "knapsack([5], [10], 5) == 10",
            "knapsack([10, 20, 30], [60, 100, 120], 50) == 220",
            "knapsack([1, 1, 1], [1, 2, 3], 2) == 5",
            "knapsack([2, 3, 4], [3, 4, 5], 0) == 0",
            "knapsack([4, 2, 3], [10, 4, 7], 5) == 11",
            "knapsack([1] * 20, list(range(20)), 5) == 85",
        ],
    },
    {
        "entry_point": "grid_shortest_path",
        "tags": ["graphs", "bfs", "matrix"],
        "doc": r"""
            ``grid`` is a list of equal-length strings with exactly one ``S`` (start)
            and one ``E`` (end); ``#`` is a wall and anything else is open. Moving
            one step up, down, left or right, return the fewest steps from S to E,
            or -1 if E cannot be reached.

            >>> grid_shortest_path(["S.#", "..E"])
            3
        """,
        "src": r"""
            def grid_shortest_path(grid: list[str]) -> int:
                from collections import deque

                rows, cols = len(grid), len(grid[0])
                start = next((r, c) for r in range(rows) for c in range(cols)
                             if grid[r][c] == "S")
                dist = {start: 0}
                queue = deque([start])
                while queue:
                    r, c = queue.popleft()
                    if grid[r][c] == "E":
                        return dist[(r, c)]
                    for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                        if (0 <= nr < rows and 0 <= nc < cols and grid[nr][nc] != "#"
                                and (nr, nc) not in dist):
                            dist[(nr, nc)] = dist[(r, c)] + 1
                            queue.append((nr, nc))
                return -1
        """,
        "visible": ["grid_shortest_path(['SE']) == 1", "grid_shortest_path(['S#E']) == -1"],
        "hidden": [
            "grid_shortest_path(['S..', '##.', 'E..']) == 6",
            "grid_shortest_path(['S.', '.E']) == 2",
            "grid_shortest_path(['S###', '...E']) == 4",
            "grid_shortest_path(['E..S']) == 3",
            "grid_shortest_path(['S#', '#E']) == -1",
            "grid_shortest_path(['.....', '.###.', '.#E#.', '.#.#.', 'S....']) == 4",
            "grid_shortest_path(['S' + '.' * 48 + 'E', '.' * 50]) == 49",
        ],
    },
    {
        "entry_point": "count_islands",
        "tags": ["graphs", "bfs", "matrix"],
        "doc": r"""
            Count the islands in ``grid`` (a list of equal-length strings of ``1`` for
            land and ``0`` for water). Land cells joined up, down, left or right
            belong to the same island.

            >>> count_islands(["110", "010", "001"])
            2
        """,
        "src": r"""
            def count_islands(grid: list[str]) -> int:
                seen: set[tuple[int, int]] = set()
                islands = 0
                for r, row in enumerate(grid):
                    for c, cell in enumerate(row):
                        if cell != "1" or (r, c) in seen:
                            continue
                        islands += 1
                        stack = [(r, c)]
                        seen.add((r, c))
                        while stack:
                            y, x = stack.pop()
                            for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                                if (0 <= ny < len(grid) and 0 <= nx < len(grid[ny])
                                        and grid[ny][nx] == "1" and (ny, nx) not in seen):
                                    seen.add((ny, nx))
                                    stack.append((ny, nx))
                return islands
        """,
        "visible": ["count_islands([]) == 0", "count_islands(['1']) == 1"],
        "hidden": [
            "count_islands(['11000', '11000', '00100', '00011']) == 3",
            "count_islands(['0']) == 0",
            "count_islands(['101', '010', '101']) == 5",
            "count_islands(['111', '101', '111']) == 1",
            "count_islands(['1111']) == 1",
            "count_islands(['1', '0', '1']) == 2",
            "count_islands(['11110', '11010', '11000', '00000']) == 1",
            "count_islands(['10' * 20] * 40) == 20",
        ],
    },
    {
        "entry_point": "topo_order",
        "tags": ["graphs", "sorting"],
        "doc": r"""
            Nodes are ``0..n-1`` and each edge ``(u, v)`` means u must come before v.
            Return the lexicographically smallest ordering of all nodes that respects
            every edge, or [] if the constraints contain a cycle.

            >>> topo_order(4, [(0, 2), (1, 2), (2, 3)])
            [0, 1, 2, 3]
        """,
        "src": r"""
            def topo_order(n: int, edges: list[tuple[int, int]]) -> list[int]:
                import heapq

                indegree = [0] * n
                successors: list[list[int]] = [[] for _ in range(n)]
                for u, v in edges:
                    successors[u].append(v)
                    indegree[v] += 1
                heap = [v for v in range(n) if indegree[v] == 0]
                heapq.heapify(heap)
                order = []
                while heap:
                    u = heapq.heappop(heap)
                    order.append(u)
                    for v in successors[u]:
                        indegree[v] -= 1
                        if indegree[v] == 0:
                            heapq.heappush(heap, v)
                return order if len(order) == n else []
        """,
        "visible": ["topo_order(3, []) == [0, 1, 2]", "topo_order(2, [(0, 1), (1, 0)]) == []"],
        "hidden": [
            "topo_order(0, []) == []",
            "topo_order(3, [(2, 1), (1, 0)]) == [2, 1, 0]",
            "topo_order(4, [(3, 0), (1, 0)]) == [1, 2, 3, 0]",
            "topo_order(3, [(0, 0)]) == []",
            "topo_order(5, [(0, 1), (0, 2), (3, 1)]) == [0, 2, 3, 1, 4]",
            "topo_order(3, [(0, 1), (1, 2), (2, 1)]) == []",
            "topo_order(2, [(1, 0), (1, 0)]) == [1, 0]",
        ],
    },
    {
        "entry_point": "shortest_distances",
        "tags": ["graphs"],
        "doc": r"""
            Nodes are ``0..n-1`` and ``edges`` are directed ``(u, v, w)`` with weight
            ``w >= 0``. Return the list of shortest distances from ``source`` to every
            node, using -1 for nodes that cannot be reached.

            >>> shortest_distances(3, [(0, 1, 4), (0, 2, 1), (2, 1, 2)], 0)
            [0, 3, 1]
        """,
        "src": r"""
            def shortest_distances(n: int, edges: list[tuple], source: int) -> list[int]:
                import heapq

                adjacency: list[list[tuple[int, int]]] = [[] for _ in range(n)]
                for u, v, w in edges:
                    adjacency[u].append((v, w))
                dist = [-1] * n
                heap = [(0, source)]
                while heap:
                    d, u = heapq.heappop(heap)
                    if dist[u] != -1:
                        continue
                    dist[u] = d
                    for v, w in adjacency[u]:
                        if dist[v] == -1:
                            heapq.heappush(heap, (d + w, v))
                return dist
        """,
        "visible": [
            "shortest_distances(2, [], 0) == [0, -1]",
            "shortest_distances(1, [], 0) == [0]",
        ],
        "hidden": [
            "shortest_distances(3, [(0, 1, 5)], 1) == [-1, 0, -1]",
            "shortest_distances(4, [(0, 1, 1), (1, 2, 1), (0, 2, 5), (2, 3, 1)], 0) == "
            "[0, 1, 2, 3]",
            "shortest_distances(3, [(0, 1, 0), (1, 2, 0)], 0) == [0, 0, 0]",
            "shortest_distances(3, [(0, 1, 2), (0, 1, 1)], 0) == [0, 1, -1]",
            "shortest_distances(5, [(0, 1, 10), (0, 2, 3), (2, 1, 4), (1, 3, 2), (2, 3, 8), "
            "(3, 4, 7)], 0) == [0, 7, 3, 9, 16]",
            "shortest_distances(2, [(1, 0, 3)], 0) == [0, -1]",
        ],
    },
    {
        "entry_point": "merge_intervals",
        "tags": ["intervals", "sorting"],
        "doc": r"""
            Merge overlapping closed intervals ``[start, end]`` (given in any order).
            Intervals that merely share an endpoint are merged too, but ``[1, 2]`` and
            ``[3, 4]`` are not. Return ``[start, end]`` lists sorted by start.

            >>> merge_intervals([[1, 3], [2, 6], [8, 10], [15, 18]])
            [[1, 6], [8, 10], [15, 18]]
        """,
        "src": r"""
            def merge_intervals(intervals: list[list[int]]) -> list[list[int]]:
                merged: list[list[int]] = []
                for start, end in sorted(intervals):
                    if merged and start <= merged[-1][1]:
                        merged[-1][1] = max(merged[-1][1], end)
                    else:
                        merged.append([start, end])
                return merged
        """,
        "visible": ["merge_intervals([]) == []", "merge_intervals([[1, 4], [4, 5]]) == [[1, 5]]"],
        "hidden": [
            "merge_intervals([[5, 6], [1, 2]]) == [[1, 2], [5, 6]]",
            "merge_intervals([[1, 10], [2, 3], [4, 5]]) == [[1, 10]]",
            "merge_intervals([[1, 1]]) == [[1, 1]]",
            "merge_intervals([[2, 3], [1, 2], [3, 4]]) == [[1, 4]]",
            "merge_intervals([[0, 0], [1, 1]]) == [[0, 0], [1, 1]]",
            "merge_intervals([[-5, -1], [-3, 2]]) == [[-5, 2]]",
            "merge_intervals([[1, 5], [2, 3], [6, 7]]) == [[1, 5], [6, 7]]",
        ],
    },
    {
        "entry_point": "insert_interval",
        "tags": ["intervals"],
        "doc": r"""
            ``intervals`` is a sorted list of disjoint closed intervals. Insert
            ``new`` and merge wherever intervals now overlap or share an endpoint,
            returning the sorted list of ``[start, end]`` intervals.

            >>> insert_interval([[1, 3], [6, 9]], [2, 5])
            [[1, 5], [6, 9]]
        """,
        "src": r"""
            def insert_interval(intervals: list[list[int]], new: list[int]) -> list[list[int]]:
                out: list[list[int]] = []
                start, end = new
                placed = False
                for s, e in intervals:
                    if e < start:
                        out.append([s, e])
                    elif s > end:
                        if not placed:
                            out.append([start, end])
                            placed = True
                        out.append([s, e])
                    else:
                        start, end = min(start, s), max(end, e)
                if not placed:
                    out.append([start, end])
                return out
        """,
        "visible": [
            "insert_interval([], [4, 8]) == [[4, 8]]",
            "insert_interval([[1, 5]], [2, 3]) == [[1, 5]]",
        ],
        "hidden": [
            "insert_interval([[1, 2], [3, 5], [6, 7], [8, 10], [12, 16]], [4, 8]) == "
            "[[1, 2], [3, 10], [12, 16]]",
            "insert_interval([[1, 5]], [6, 8]) == [[1, 5], [6, 8]]",
            "insert_interval([[1, 5]], [0, 0]) == [[0, 0], [1, 5]]",
            "insert_interval([[3, 5]], [1, 3]) == [[1, 5]]",
            "insert_interval([[1, 2], [8, 9]], [4, 5]) == [[1, 2], [4, 5], [8, 9]]",
            "insert_interval([[1, 2], [3, 4]], [0, 10]) == [[0, 10]]",
            "insert_interval([[1, 2]], [5, 6]) == [[1, 2], [5, 6]]",
        ],
    },
    {
        "entry_point": "min_rooms",
        "tags": ["intervals", "sorting"],
        "doc": r"""
            Each meeting ``[start, end)`` occupies a room from ``start`` up to but not
            including ``end``. Return the minimum number of rooms needed to hold all
            meetings.

            >>> min_rooms([[0, 30], [5, 10], [15, 20]])
            2
        """,
        "src": r"""
            def min_rooms(meetings: list[list[int]]) -> int:
                events = sorted([(s, 1) for s, _ in meetings] + [(e, -1) for _, e in meetings])
                current = best = 0
                for _, delta in events:
                    current += delta
                    best = max(best, current)
                return best
        """,
        "visible": ["min_rooms([]) == 0", "min_rooms([[7, 10], [2, 4]]) == 1"],
        "hidden": [
            "min_rooms([[1, 5], [5, 10]]) == 1",
            "min_rooms([[1, 5], [2, 6], [3, 7]]) == 3",
            "min_rooms([[1, 2], [1, 2], [1, 2], [3, 4]]) == 3",
            "min_rooms([[0, 1]]) == 1",
            "min_rooms([[1, 10], [2, 3], [4, 5], [6, 7]]) == 2",
            "min_rooms([[5, 8], [1, 5], [3, 5]]) == 2",
        ],
    },
    {
        "entry_point": "calc",
        "tags": ["parsing", "recursion"],
        "doc": r"""
            Evaluate an integer expression with ``+``, ``-``, ``*``, parentheses,
            unary minus and arbitrary spaces, using the usual precedence (``*`` before
            ``+``/``-``, left to right). Do not use ``eval``.

            >>> calc("2 + 3 * (4 - 1)")
            11
        """,
        "src": r"""
            def calc(expr: str) -> int:
                import re

                tokens = re.findall(r"\d+|[-+*()]", expr)
                pos = 0

                def peek() -> str | None:
                    return tokens[pos] if pos < len(tokens) else None

                def take() -> str:
                    nonlocal pos
                    pos += 1
                    return tokens[pos - 1]

                def expression() -> int:
                    value = term()
                    while peek() in ("+", "-"):
                        op = take()
                        value = value + term() if op == "+" else value - term()
                    return value

                def term() -> int:
                    value = factor()
                    while peek() == "*":
                        take()
                        value *= factor()
                    return value

                def factor() -> int:
                    token = take()
                    if token == "-":
                        return -factor()
                    if token == "(":
                        value = expression()
                        take()
                        return value
                    return int(token)

                return expression()
        """,
        "visible": ["calc('1+2') == 3", "calc('-3*2') == -6"],
        "hidden": [
            "calc('42') == 42",
            "calc('2*3+4') == 10",
            "calc('2*(3+4)') == 14",
            "calc('((1))') == 1",
            "calc('10 - 2 - 3') == 5",
            "calc('-(2+3)*-2') == 10",
            "calc('2*-3') == -6",
            "calc('1 - -1') == 2",
            "calc('3*3*3 - 27') == 0",
        ],
    },
    {
        "entry_point": "parse_list",
        "tags": ["parsing", "recursion"],
        "doc": r"""
            Parse a nested list literal of integers such as ``"[1, [2, -3], []]"``
            into Python lists, without using ``eval``. Whitespace may appear
            anywhere between tokens.

            >>> parse_list("[1, [2, 3], []]")
            [1, [2, 3], []]
        """,
        "src": r"""
            def parse_list(s: str) -> list:
                import re

                stack: list[list] = [[]]
                for token in re.findall(r"-?\d+|[\[\]]", s):
                    if token == "[":
                        child: list = []
                        stack[-1].append(child)
                        stack.append(child)
                    elif token == "]":
                        stack.pop()
                    else:
                        stack[-1].append(int(token))
                return stack[0][0]
        """,
        "visible": ["parse_list('[]') == []", "parse_list('[1,2]') == [1, 2]"],
        "hidden": [
            "parse_list('[[]]') == [[]]",
            "parse_list('[ -1 , [ 2 ] ]') == [-1, [2]]",
            "parse_list('[[[[5]]]]') == [[[[5]]]]",
            "parse_list('[10,[20,[30]],40]') == [10, [20, [30]], 40]",
            "parse_list('[0]') == [0]",
            "parse_list(' [ ] ') == []",
            "parse_list('[[1],[],[2,[3,[]]]]') == [[1], [], [2, [3, []]]]",
        ],
    },
    {
        "entry_point": "decode_repeats",
        "tags": ["parsing", "strings", "stack"],
        "doc": r"""
            Expand ``k[text]`` groups, where ``k`` is a decimal count and ``text`` is
            repeated ``k`` times; groups may nest. Characters outside groups are
            copied as they are. Digits only ever appear as counts.

            >>> decode_repeats("2[ab3[c]]d")
            'abcccabcccd'
        """,
        "src": r"""
            def decode_repeats(s: str) -> str:
                parts: list[list[str]] = [[]]
                counts: list[int] = []
                number = 0
                for ch in s:
                    if ch.isdigit():
                        number = number * 10 + int(ch)
                    elif ch == "[":
                        counts.append(number)
                        number = 0
                        parts.append([])
                    elif ch == "]":
                        text = "".join(parts.pop())
                        parts[-1].append(text * counts.pop())
                    else:
                        parts[-1].append(ch)
                return "".join(parts[0])
        """,
        "visible": ["decode_repeats('3[a]2[bc]') == 'aaabcbc'", "decode_repeats('abc') == 'abc'"],
        "hidden": [
            "decode_repeats('3[a2[c]]') == 'accaccacc'",
            "decode_repeats('2[abc]3[cd]ef') == 'abcabccdcdcdef'",
            "decode_repeats('10[x]') == 'x' * 10",
            "decode_repeats('') == ''",
            "decode_repeats('1[1[1[z]]]') == 'z'",
            "decode_repeats('a2[]b') == 'ab'",
            "decode_repeats('2[2[2[a]]]') == 'a' * 8",
        ],
    },
    {
        "entry_point": "word_break",
        "tags": ["dp", "strings"],
        "doc": r"""
            Return True if ``s`` can be split into a sequence of one or more words
            from ``words`` (each word may be reused). The empty string can always be
            split.

            >>> word_break("sunflower", ["sun", "flow", "flower", "er"])
            True
        """,
        "src": r"""
            def word_break(s: str, words: list[str]) -> bool:
                vocabulary = set(words)
                lengths = {len(w) for w in vocabulary}
                ok = [True] + [False] * len(s)
                for end in range(1, len(s) + 1):
                    ok[end] = any(n <= end and ok[end - n] and s[end - n:end] in vocabulary
                                  for n in lengths)
                return ok[len(s)]
        """,
        "visible": [
            "word_break('moonbeam', ['moon', 'be', 'am', 'beams']) is True",
            "word_break('stars', ['star', 'tar']) is False",
        ],
        "hidden": [
            "word_break('', ['a']) is True",
            "word_break('a', []) is False",
            "word_break('aaaaaaa', ['aaa', 'aaaa']) is True",
            "word_break('abcd', ['a', 'abc', 'b', 'cd']) is True",
            "word_break('aaab', ['a', 'aa']) is False",
            "word_break('cars', ['car', 'ca', 'rs']) is True",
            "word_break('a' * 40 + 'b', ['a', 'aa', 'aaa']) is False",
            "word_break('gogogo', ['go', 'gog', 'og']) is True",
        ],
    },
    {
        "entry_point": "decode_ways",
        "tags": ["dp", "strings"],
        "doc": r"""
            Letters are encoded as numbers 'A' = 1 ... 'Z' = 26 and concatenated.
            Return how many letter strings encode to the non-empty digit string
            ``s`` (codes never have leading zeros).

            >>> decode_ways("226")
            3
        """,
        "src": r"""
            def decode_ways(s: str) -> int:
                previous, current = 1, 1 if s[0] != "0" else 0
                for i in range(1, len(s)):
                    ways = current if s[i] != "0" else 0
                    if 10 <= int(s[i - 1:i + 1]) <= 26:
                        ways += previous
                    previous, current = current, ways
                return current
        """,
        "visible": ["decode_ways('12') == 2", "decode_ways('06') == 0"],
        "hidden": [
            "decode_ways('0') == 0",
            "decode_ways('10') == 1",
            "decode_ways('27') == 1",
            "decode_ways('11106') == 2",
            "decode_ways('1111111111') == 89",
            "decode_ways('100') == 0",
            "decode_ways('2101') == 1",
            "decode_ways('7') == 1",
        ],
    },
    {
        "entry_point": "largest_rectangle",
        "tags": ["stack", "lists"],
        "doc": r"""
            ``heights`` are the heights of adjacent bars of width 1 in a histogram.
            Return the area of the largest axis-aligned rectangle inside it.
            Aim for linear time.

            >>> largest_rectangle([2, 1, 5, 6, 2, 3])
            10
        """,
        "src": r"""
            def largest_rectangle(heights: list[int]) -> int:
                stack: list[int] = []
                best = 0
                for i, h in enumerate(heights + [0]):
                    while stack and heights[stack[-1]] >= h:
                        height = heights[stack.pop()]
                        left = stack[-1] + 1 if stack else 0
                        best = max(best, height * (i - left))
                    stack.append(i)
                return best
        """,
        "visible": ["largest_rectangle([]) == 0", "largest_rectangle([2, 4]) == 4"],
        "hidden": [
            "largest_rectangle([1]) == 1",
            "largest_rectangle([3, 3, 3]) == 9",
            "largest_rectangle([1, 2, 3, 4, 5]) == 9",
            "largest_rectangle([5, 4, 3, 2, 1]) == 9",
            "largest_rectangle([0, 0]) == 0",
            "largest_rectangle([2, 1, 2]) == 3",
            "largest_rectangle([6, 2, 5, 4, 5, 1, 6]) == 12",
        ],
    },
    {
        "entry_point": "trapped_water",
        "tags": ["lists", "two-pointers"],
        "doc": r"""
            ``heights`` describes an elevation profile of width-1 columns. Return how
            many units of rain water stay trapped between the columns.

            >>> trapped_water([0, 1, 0, 2, 1, 0, 1, 3, 2, 1, 2, 1])
            6
        """,
        "src": r"""
            def trapped_water(heights: list[int]) -> int:
                left, right = 0, len(heights) - 1
                left_max = right_max = water = 0
                while left < right:
                    if heights[left] < heights[right]:
                        left_max = max(left_max, heights[left])
                        water += left_max - heights[left]
                        left += 1
                    else:
                        right_max = max(right_max, heights[right])
                        water += right_max - heights[right]
                        right -= 1
                return water
        """,
        "visible": ["trapped_water([]) == 0", "trapped_water([3, 0, 3]) == 3"],
        "hidden": [
            "trapped_water([4, 2, 0, 3, 2, 5]) == 9",
            "trapped_water([1, 2, 3]) == 0",
            "trapped_water([5, 0, 0, 0, 1]) == 3",
            "trapped_water([2, 0, 2, 0, 2]) == 4",
            "trapped_water([0]) == 0",
            "trapped_water([3, 1, 2, 1, 3]) == 5",
            "trapped_water([3, 2, 1]) == 0",
        ],
    },
    {
        "entry_point": "gray_code",
        "tags": ["bits"],
        "doc": r"""
            Return the ``n``-bit reflected binary Gray code as a list of ``2**n``
            integers starting at 0, where neighbouring values differ in exactly one
            bit.

            >>> gray_code(2)
            [0, 1, 3, 2]
        """,
        "src": r"""
            def gray_code(n: int) -> list[int]:
                return [i ^ (i >> 1) for i in range(1 << n)]
        """,
        "visible": ["gray_code(1) == [0, 1]", "gray_code(0) == [0]"],
        "hidden": [
            "gray_code(3) == [0, 1, 3, 2, 6, 7, 5, 4]",
            "len(gray_code(10)) == 1024 and sorted(gray_code(10)) == list(range(1024))",
            "len(gray_code(6)) == 64 and gray_code(6)[0] == 0 and "
            "all(bin(a ^ b).count('1') == 1 for a, b in zip(gray_code(6), gray_code(6)[1:]))",
            "sorted(gray_code(5)) == list(range(32))",
            "gray_code(4)[-1] == 8",
            "gray_code(4)[8:] == [12, 13, 15, 14, 10, 11, 9, 8]",
        ],
    },
    {
        "entry_point": "bits_sum",
        "tags": ["bits", "math"],
        "doc": r"""
            Return the total number of 1 bits in the binary forms of all integers
            from 1 to ``n`` inclusive. ``n`` can be as large as ``10**15``, so
            counting one number at a time is too slow.

            >>> bits_sum(7)
            12
        """,
        "src": r"""
            def bits_sum(n: int) -> int:
                total, bit = 0, 1
                while bit <= n:
                    cycle = bit * 2
                    total += (n + 1) // cycle * bit + max(0, (n + 1) % cycle - bit)
                    bit = cycle
                return total
        """,
        "visible": ["bits_sum(0) == 0", "bits_sum(3) == 4"],
        "hidden": [
            "bits_sum(1) == 1",
            "bits_sum(8) == 13",
            "bits_sum(16) == 33",
            "bits_sum(1000) == sum(bin(i).count('1') for i in range(1001))",
            "bits_sum(12345) == sum(bin(i).count('1') for i in range(12346))",
            "bits_sum(2 ** 40 - 1) == 40 * 2 ** 39",
            "bits_sum(2 ** 50) == 50 * 2 ** 49 + 1",
        ],
    },
    {
        "entry_point": "two_singles",
        "tags": ["bits", "lists"],
        "doc": r"""
            In ``nums`` every value appears exactly twice except two distinct values
            that appear once. Return those two as an ascending tuple, using O(1)
            extra space (hint: XOR).

            >>> two_singles([1, 2, 1, 3, 2, 5])
            (3, 5)
        """,
        "src": r"""
            def two_singles(nums: list[int]) -> tuple[int, int]:
                combined = 0
                for x in nums:
                    combined ^= x
                low_bit = combined & -combined
                first = 0
                for x in nums:
                    if x & low_bit:
                        first ^= x
                second = combined ^ first
                return (min(first, second), max(first, second))
        """,
        "visible": ["two_singles([4, 7]) == (4, 7)", "two_singles([0, 1]) == (0, 1)"],
        "hidden": [
            "two_singles([-1, 0, 0, 5]) == (-1, 5)",
            "two_singles([9, 9, 8, 8, 7, 6]) == (6, 7)",
            "two_singles([2, 2, 3, 3, -4, -8]) == (-8, -4)",
            "two_singles([100, 200, 100, 300, 300, 400]) == (200, 400)",
            "two_singles([7, 1, 7, 2]) == (1, 2)",
            "two_singles(list(range(1000)) * 2 + [5000, 7000]) == (5000, 7000)",
        ],
    },
    {
        "entry_point": "reverse_bits32",
        "tags": ["bits"],
        "doc": r"""
            Treat ``n`` (0 <= n < 2**32) as a 32-bit unsigned integer, reverse the
            order of its bits and return the result.

            >>> reverse_bits32(1)
            2147483648
        """,
        "src": r"""
            def reverse_bits32(n: int) -> int:
                result = 0
                for _ in range(32):
                    result = (result << 1) | (n & 1)
                    n >>= 1
                return result
        """,
        "visible": ["reverse_bits32(0) == 0", "reverse_bits32(2) == 1073741824"],
        "hidden": [
            "reverse_bits32(2 ** 32 - 1) == 2 ** 32 - 1",
            "reverse_bits32(43261596) == 964176192",
            "reverse_bits32(2147483648) == 1",
            "reverse_bits32(11) == (1 << 31) | (1 << 30) | (1 << 28)",
            "reverse_bits32(123456789) == 2830359264 "
            "and reverse_bits32(reverse_bits32(123456789)) == 123456789",
            "reverse_bits32(0xF0000000) == 0xF",
        ],
    },
    {
        "entry_point": "count_subsets",
        "tags": ["dp", "math"],
        "doc": r"""
            Count the subsets of positions of ``nums`` whose elements sum to
            ``target`` (equal values at different positions count as different
            subsets; the empty subset sums to 0). ``nums`` may contain negatives.

            >>> count_subsets([1, 2, 3], 3)
            2
        """,
        "src": r"""
            def count_subsets(nums: list[int], target: int) -> int:
                counts = {0: 1}
                for x in nums:
                    updated = dict(counts)
                    for total, ways in counts.items():
                        updated[total + x] = updated.get(total + x, 0) + ways
                    counts = updated
                return counts.get(target, 0)
        """,
        "visible": ["count_subsets([], 0) == 1", "count_subsets([], 5) == 0"],
        "hidden": [
            "count_subsets([0, 0], 0) == 4",
            "count_subsets([1, 1, 1, 1], 2) == 6",
            "count_subsets([5, -5, 3], 0) == 2",
            "count_subsets([2, 4, 6, 8], 10) == 2",
            "count_subsets([1, 2, 3, 4, 5], 15) == 1",
            "count_subsets([3, 3, 3], 6) == 3",
            "count_subsets([1] * 30, 15) == 155117520",
        ],
    },
    {
        "entry_point": "n_queens",
        "tags": ["recursion", "backtracking", "bits"],
        "doc": r"""
            Return the number of ways to place ``n`` queens on an ``n x n`` board
            (``n >= 1``) so that no two attack each other.

            >>> n_queens(4)
            2
        """,
        "src": r"""
            def n_queens(n: int) -> int:
                full = (1 << n) - 1

                def place(columns: int, diag_left: int, diag_right: int) -> int:
                    if columns == full:
                        return 1
                    count = 0
                    free = full & ~(columns | diag_left | diag_right)
                    while free:
                        bit = free & -free
                        free -= bit
                        count += place(columns | bit, ((diag_left | bit) << 1) & full,
                                       (diag_right | bit) >> 1)
                    return count

                return place(0, 0, 0)
        """,
        "visible": ["n_queens(1) == 1", "n_queens(2) == 0"],
        "hidden": [
            "n_queens(3) == 0",
            "n_queens(5) == 10",
            "n_queens(6) == 4",
            "n_queens(7) == 40",
            "n_queens(8) == 92",
        ],
    },
    {
        "entry_point": "unique_perms",
        "tags": ["recursion", "backtracking", "strings"],
        "doc": r"""
            Return every distinct rearrangement of the characters of ``s``, sorted.

            >>> unique_perms("aab")
            ['aab', 'aba', 'baa']
        """,
        "src": r"""
            def unique_perms(s: str) -> list[str]:
                from collections import Counter

                counts = Counter(s)
                out: list[str] = []
                current: list[str] = []

                def extend() -> None:
                    if len(current) == len(s):
                        out.append("".join(current))
                        return
                    for ch in sorted(counts):
                        if counts[ch]:
                            counts[ch] -= 1
                            current.append(ch)
                            extend()
                            current.pop()
                            counts[ch] += 1

                extend()
                return out
        """,
        "visible": ["unique_perms('ab') == ['ab', 'ba']", "unique_perms('aa') == ['aa']"],
        "hidden": [
            "unique_perms('') == ['']",
            "unique_perms('abc') == ['abc', 'acb', 'bac', 'bca', 'cab', 'cba']",
            "len(set(unique_perms('aabbcc'))) == len(unique_perms('aabbcc')) == 90 "
            "and all(sorted(p) == sorted('aabbcc') for p in unique_perms('aabbcc'))",
            "len(set(unique_perms('abcdef'))) == len(unique_perms('abcdef')) == 720 "
            "and unique_perms('abcdef') == sorted(unique_perms('abcdef'))"
            " and all(sorted(p) == list('abcdef') for p in unique_perms('abcdef'))",
            "unique_perms('x') == ['x']",
            "unique_perms('bba')[0] == 'abb'",
            "unique_perms('aaaaaaaaab')[-1] == 'baaaaaaaaa'",
        ],
    },
    {
        "entry_point": "valid_sudoku",
        "tags": ["matrix", "dicts"],
        "doc": r"""
            ``board`` is 9 strings of 9 characters, each a digit 1-9 or ``.`` for an
            empty cell. Return True if no digit repeats within any row, column or
            3x3 box (the board need not be complete or solvable).

            >>> valid_sudoku(["12......."] + ["." * 9] * 8)
            True
        """,
        "src": r"""
            def valid_sudoku(board: list[str]) -> bool:
                seen: set[tuple] = set()
                for r, row in enumerate(board):
                    for c, ch in enumerate(row):
                        if ch == ".":
                            continue
                        keys = (("row", r, ch), ("col", c, ch), ("box", r // 3, c // 3, ch))
                        if any(key in seen for key in keys):
                            return False
                        seen.update(keys)
                return True
        """,
        "visible": [
            f"valid_sudoku({_EMPTY_ROWS}9) is True",
            f"valid_sudoku(['11.......'] + {_EMPTY_ROWS}8) is False",
        ],
        "hidden": [
            f"valid_sudoku({_PATTERN_BOARD}) is True",
            f"valid_sudoku(['1........', '1........'] + {_EMPTY_ROWS}7) is False",
            f"valid_sudoku(['1........', '.1.......'] + {_EMPTY_ROWS}7) is False",
            f"valid_sudoku(['1........', '...1.....'] + {_EMPTY_ROWS}7) is True",
            f"valid_sudoku(['........5'] + {_EMPTY_ROWS}7 + ['........5']) is False",
            f"valid_sudoku(['123456789'] + {_EMPTY_ROWS}8) is True",
            f"valid_sudoku({_EMPTY_ROWS}4 + ['....9....', '.....9...'] + {_EMPTY_ROWS}3) is False",
        ],
    },
    {
        "entry_point": "longest_palindrome",
        "tags": ["strings", "dp"],
        "doc": r"""
            Return the longest contiguous palindromic substring of ``s``; if several
            have the maximal length, return the one that starts first.

            >>> longest_palindrome("babad")
            'bab'
        """,
        "src": r"""
            def longest_palindrome(s: str) -> str:
                best = s[:1]
                for center in range(len(s)):
                    for left, right in ((center, center), (center, center + 1)):
                        while left >= 0 and right < len(s) and s[left] == s[right]:
                            left -= 1
                            right += 1
                        if right - left - 1 > len(best):
                            best = s[left + 1:right]
                return best
        """,
        "visible": ["longest_palindrome('cbbd') == 'bb'", "longest_palindrome('') == ''"],
        "hidden": [
            "longest_palindrome('a') == 'a'",
            "longest_palindrome('ac') == 'a'",
            "longest_palindrome('forgeeksskeegfor') == 'geeksskeeg'",
            "longest_palindrome('abacdfgdcaba') == 'aba'",
            "longest_palindrome('aaaa') == 'aaaa'",
            "longest_palindrome('xabbay') == 'abba'",
            "longest_palindrome('abcba') == 'abcba'",
        ],
    },
    {
        "entry_point": "min_path_sum",
        "tags": ["dp", "matrix"],
        "doc": r"""
            Walk from the top-left to the bottom-right cell of ``grid`` moving only
            right or down. Return the smallest possible sum of the visited cells
            (0 for an empty grid).

            >>> min_path_sum([[1, 3, 1], [1, 5, 1], [4, 2, 1]])
            7
        """,
        "src": r"""
            def min_path_sum(grid: list[list[int]]) -> int:
                if not grid or not grid[0]:
                    return 0
                best: list[int] = []
                for r, row in enumerate(grid):
                    current: list[int] = []
                    for c, value in enumerate(row):
                        if r == 0 and c == 0:
                            current.append(value)
                        elif r == 0:
                            current.append(current[c - 1] + value)
                        elif c == 0:
                            current.append(best[c] + value)
                        else:
                            current.append(min(best[c], current[c - 1]) + value)
                    best = current
                return best[-1]
        """,
        "visible": ["min_path_sum([[5]]) == 5", "min_path_sum([]) == 0"],
        "hidden": [
            "min_path_sum([[1, 2, 3]]) == 6",
            "min_path_sum([[1], [2], [3]]) == 6",
            "min_path_sum([[1, 2], [1, 1]]) == 3",
            "min_path_sum([[0, 0], [0, 0]]) == 0",
            "min_path_sum([[1, 9, 9], [1, 9, 9], [1, 1, 1]]) == 5",
            "min_path_sum([[3, -1], [2, -5]]) == -3",
        ],
    },
    {
        "entry_point": "grid_paths",
        "tags": ["dp", "matrix"],
        "doc": r"""
            Count the paths from the top-left to the bottom-right cell of ``grid``
            (equal-length strings, ``#`` blocked, ``.`` open) moving only right or
            down through open cells.

            >>> grid_paths(["...", ".#.", "..."])
            2
        """,
        "src": r"""
            def grid_paths(grid: list[str]) -> int:
                ways = [0] * len(grid[0])
                ways[0] = 1
                for row in grid:
                    for c, cell in enumerate(row):
                        if cell == "#":
                            ways[c] = 0
                        elif c > 0:
                            ways[c] += ways[c - 1]
                return ways[-1]
        """,
        "visible": ["grid_paths(['#']) == 0", "grid_paths(['.']) == 1"],
        "hidden": [
            "grid_paths(['..', '..']) == 2",
            "grid_paths(['...', '...', '...']) == 6",
            "grid_paths(['.#', '#.']) == 0",
            "grid_paths(['.....']) == 1",
            "grid_paths(['.' * 10] * 10) == 48620",
            "grid_paths(['..#', '...', '#..']) == 4",
            "grid_paths(['.', '#', '.']) == 0",
        ],
    },
    {
        "entry_point": "count_components",
        "tags": ["graphs", "union-find"],
        "doc": r"""
            Count the connected components of the undirected graph with nodes
            ``0..n-1`` and the given edges (which may repeat or be self-loops).

            >>> count_components(5, [(0, 1), (1, 2), (3, 4)])
            2
        """,
        "src": r"""
            def count_components(n: int, edges: list[tuple[int, int]]) -> int:
                parent = list(range(n))

                def find(x: int) -> int:
                    while parent[x] != x:
                        parent[x] = parent[parent[x]]
                        x = parent[x]
                    return x

                components = n
                for u, v in edges:
                    ru, rv = find(u), find(v)
                    if ru != rv:
                        parent[ru] = rv
                        components -= 1
                return components
        """,
        "visible": ["count_components(3, []) == 3", "count_components(0, []) == 0"],
        "hidden": [
            "count_components(1, []) == 1",
            "count_components(4, [(0, 1), (1, 2), (2, 3), (3, 0)]) == 1",
            "count_components(4, [(0, 0)]) == 4",
            "count_components(6, [(0, 5), (1, 4), (2, 3)]) == 3",
            "count_components(5, [(0, 1), (0, 1), (3, 4)]) == 3",
            "count_components(1000, [(i, i + 1) for i in range(0, 999, 2)]) == 500",
        ],
    },
    {
        "entry_point": "is_bipartite",
        "tags": ["graphs", "bfs"],
        "doc": r"""
            Return True if the undirected graph with nodes ``0..n-1`` and the given
            edges can be 2-coloured so that every edge joins different colours.

            >>> is_bipartite(4, [(0, 1), (1, 2), (2, 3), (3, 0)])
            True
        """,
        "src": r"""
            def is_bipartite(n: int, edges: list[tuple[int, int]]) -> bool:
                adjacency: list[list[int]] = [[] for _ in range(n)]
                for u, v in edges:
                    adjacency[u].append(v)
                    adjacency[v].append(u)
                colour = [-1] * n
                for start in range(n):
                    if colour[start] != -1:
                        continue
                    colour[start] = 0
                    stack = [start]
                    while stack:
                        u = stack.pop()
                        for v in adjacency[u]:
                            if colour[v] == -1:
                                colour[v] = 1 - colour[u]
                                stack.append(v)
                            elif colour[v] == colour[u]:
                                return False
                return True
        """,
        "visible": [
            "is_bipartite(3, [(0, 1), (1, 2), (2, 0)]) is False",
            "is_bipartite(0, []) is True",
        ],
        "hidden": [
            "is_bipartite(1, []) is True",
            "is_bipartite(1, [(0, 0)]) is False",
            "is_bipartite(5, [(0, 1), (2, 3), (3, 4)]) is True",
            "is_bipartite(5, [(0, 1), (2, 3), (3, 4), (4, 2)]) is False",
            "is_bipartite(6, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]) is True",
            "is_bipartite(2, [(0, 1), (0, 1)]) is True",
            "is_bipartite(6, [(0, 3), (1, 4), (2, 5), (0, 4)]) is True",
        ],
    },
    {
        "entry_point": "ladder_length",
        "tags": ["graphs", "bfs", "strings"],
        "doc": r"""
            Transform ``begin`` into ``end`` by changing one lower-case letter at a
            time, every intermediate word (and ``end``) being in ``words``. Return the
            number of words in the shortest such sequence, counting ``begin`` and
            ``end``, or 0 if impossible (in particular if ``end`` is not in ``words``).

            >>> ladder_length("cold", "warm", ["cord", "card", "ward", "warm", "word", "worm"])
            5
        """,
        "src": r"""
            def ladder_length(begin: str, end: str, words: list[str]) -> int:
                from collections import deque

                vocabulary = set(words)
                if end not in vocabulary:
                    return 0
                seen = {begin}
                queue = deque([(begin, 1)])
                while queue:
                    word, length = queue.popleft()
                    if word == end:
                        return length
                    for i in range(len(word)):
                        for ch in "abcdefghijklmnopqrstuvwxyz":
                            candidate = word[:i] + ch + word[i + 1:]
                            if candidate in vocabulary and candidate not in seen:
                                seen.add(candidate)
                                queue.append((candidate, length + 1))
                return 0
        """,
        "visible": [
            "ladder_length('abc', 'xyz', ['xbc']) == 0",
            "ladder_length('abc', 'abd', ['abd']) == 2",
        ],
        "hidden": [
            "ladder_length('a', 'c', ['a', 'b', 'c']) == 2",
            "ladder_length('hit', 'cog', ['hot', 'dot', 'dog', 'lot', 'log']) == 0",
            "ladder_length('lead', 'gold', ['load', 'goad', 'gold', 'lord']) == 4",
            "ladder_length('ab', 'cd', ['cb', 'cd']) == 3",
            "ladder_length('talk', 'tail', ['tall', 'tail', 'balk', 'ball', 'tall']) == 3",
            "ladder_length('aaa', 'bbb', ['aab', 'abb', 'bbb', 'bba']) == 4",
            "ladder_length('ab', 'cd', ['ad', 'xy', 'cd']) == 3",
            "ladder_length('abc', 'def', ['abf', 'aef', 'xyz', 'def']) == 4",
        ],
    },
    {
        "entry_point": "intersect_intervals",
        "tags": ["intervals", "two-pointers"],
        "doc": r"""
            ``a`` and ``b`` are each sorted lists of disjoint closed intervals.
            Return their intersection as a sorted list of ``[start, end]`` intervals
            (a single shared point counts).

            >>> intersect_intervals([[0, 2], [5, 10]], [[1, 5], [8, 12]])
            [[1, 2], [5, 5], [8, 10]]
        """,
        "src": r"""
            def intersect_intervals(a: list[list[int]], b: list[list[int]]) -> list[list[int]]:
                out: list[list[int]] = []
                i = j = 0
                while i < len(a) and j < len(b):
                    low, high = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
                    if low <= high:
                        out.append([low, high])
                    if a[i][1] < b[j][1]:
                        i += 1
                    else:
                        j += 1
                return out
        """,
        "visible": [
            "intersect_intervals([], [[1, 2]]) == []",
            "intersect_intervals([[1, 3]], [[4, 5]]) == []",
        ],
        "hidden": [
            "intersect_intervals([[1, 3]], [[3, 5]]) == [[3, 3]]",
            "intersect_intervals([[0, 10]], [[1, 2], [3, 4], [9, 12]]) == "
            "[[1, 2], [3, 4], [9, 10]]",
            "intersect_intervals([[1, 5]], [[1, 5]]) == [[1, 5]]",
            "intersect_intervals([[1, 2], [3, 4]], [[0, 5]]) == [[1, 2], [3, 4]]",
            "intersect_intervals([[5, 6]], [[0, 1], [6, 7]]) == [[6, 6]]",
            "intersect_intervals([[1, 2]], []) == []",
        ],
    },
    {
        "entry_point": "wildcard_match",
        "tags": ["dp", "strings"],
        "doc": r"""
            Return True if the whole of ``s`` matches ``pattern``, where ``?`` matches
            any single character and ``*`` matches any sequence (including empty).

            >>> wildcard_match("abcde", "a*d?")
            True
        """,
        "src": r"""
            def wildcard_match(s: str, pattern: str) -> bool:
                match = [True] + [False] * len(s)
                for p in pattern:
                    if p == "*":
                        for i in range(1, len(s) + 1):
                            match[i] = match[i] or match[i - 1]
                    else:
                        match = [False] + [match[i] and (p == "?" or p == s[i])
                                           for i in range(len(s))]
                return match[-1]
        """,
        "visible": [
            "wildcard_match('abc', 'a*c') is True",
            "wildcard_match('abc', 'a?d') is False",
        ],
        "hidden": [
            "wildcard_match('', '') is True",
            "wildcard_match('', '*') is True",
            "wildcard_match('a', '') is False",
            "wildcard_match('abcde', '*b*d?') is True",
            "wildcard_match('mississippi', 'm??*ss*?i*pi') is False",
            "wildcard_match('aaaa', '***a') is True",
            "wildcard_match('ab', '*?*?*') is True",
            "wildcard_match('a', '*?*?*') is False",
            "wildcard_match('a' * 60, '*a*a*a*a*a*b') is False",
        ],
    },
    {
        "entry_point": "regex_match",
        "tags": ["dp", "strings", "recursion"],
        "doc": r"""
            Return True if the whole of ``s`` matches ``pattern``, where ``.``
            matches any single character and ``x*`` matches zero or more of the
            preceding element ``x`` (a character or ``.``). Do not use ``re``.

            >>> regex_match("aab", "c*a*b")
            True
        """,
        "src": r"""
            def regex_match(s: str, pattern: str) -> bool:
                from functools import lru_cache

                @lru_cache(maxsize=None)
                def match(i: int, j: int) -> bool:
                    if j == len(pattern):
                        return i == len(s)
                    first = i < len(s) and pattern[j] in (s[i], ".")
                    if j + 1 < len(pattern) and pattern[j + 1] == "*":
                        return match(i, j + 2) or (first and match(i + 1, j))
                    return first and match(i + 1, j + 1)

                return match(0, 0)
        """,
        "visible": ["regex_match('aa', 'a*') is True", "regex_match('ab', 'a') is False"],
        "hidden": [
            "regex_match('', '') is True",
            "regex_match('', 'a*b*') is True",
            "regex_match('ab', '.*') is True",
            "regex_match('mississippi', 'mis*is*p*.') is False",
            "regex_match('abc', 'a.c') is True",
            "regex_match('abcd', 'd*') is False",
            "regex_match('aaa', 'a*a') is True",
            "regex_match('a', 'ab*') is True",
            "regex_match('a' * 30 + 'b', 'a*a*a*a*a*c') is False",
        ],
    },
    {
        "entry_point": "longest_valid_parens",
        "tags": ["stack", "strings"],
        "doc": r"""
            ``s`` contains only ``(`` and ``)``. Return the length of its longest
            contiguous substring of well-formed (balanced) parentheses.

            >>> longest_valid_parens(")()())")
            4
        """,
        "src": r"""
            def longest_valid_parens(s: str) -> int:
                stack = [-1]
                best = 0
                for i, ch in enumerate(s):
                    if ch == "(":
                        stack.append(i)
                    else:
                        stack.pop()
                        if stack:
                            best = max(best, i - stack[-1])
                        else:
                            stack.append(i)
                return best
        """,
        "visible": ["longest_valid_parens('(()') == 2", "longest_valid_parens('') == 0"],
        "hidden": [
            "longest_valid_parens('()(())') == 6",
            "longest_valid_parens('(((') == 0",
            "longest_valid_parens('()(()') == 2",
            "longest_valid_parens('(()())') == 6",
            "longest_valid_parens('())(())') == 4",
            "longest_valid_parens(')(') == 0",
            "longest_valid_parens('()' * 500 + ')') == 1000",
        ],
    },
    {
        "entry_point": "max_product_subarray",
        "tags": ["dp", "lists"],
        "doc": r"""
            Return the largest product of a non-empty contiguous slice of the
            non-empty integer list ``nums``.

            >>> max_product_subarray([2, 3, -2, 4])
            6
        """,
        "src": r"""
            def max_product_subarray(nums: list[int]) -> int:
                best = high = low = nums[0]
                for x in nums[1:]:
                    candidates = (x, high * x, low * x)
                    high, low = max(candidates), min(candidates)
                    best = max(best, high)
                return best
        """,
        "visible": ["max_product_subarray([-2, 0, -1]) == 0", "max_product_subarray([-2]) == -2"],
        "hidden": [
            "max_product_subarray([-2, 3, -4]) == 24",
            "max_product_subarray([0, 2]) == 2",
            "max_product_subarray([-1, -1]) == 1",
            "max_product_subarray([2, -5, -2, -4, 3]) == 24",
            "max_product_subarray([-3, -1, -1]) == 3",
            "max_product_subarray([1, 2, 3, 4]) == 24",
            "max_product_subarray([0]) == 0",
        ],
    },
    {
        "entry_point": "can_partition",
        "tags": ["dp", "bits"],
        "doc": r"""
            Return True if the non-negative integers ``nums`` can be split into two
            groups (every element in exactly one) with equal sums.

            >>> can_partition([1, 5, 11, 5])
            True
        """,
        "src": r"""
            def can_partition(nums: list[int]) -> bool:
                total = sum(nums)
                if total % 2:
                    return False
                reachable = 1
                for x in nums:
                    reachable |= reachable << x
                return bool(reachable >> (total // 2) & 1)
        """,
        "visible": ["can_partition([1, 2, 3, 5]) is False", "can_partition([]) is True"],
        "hidden": [
            "can_partition([1]) is False",
            "can_partition([1, 1]) is True",
            "can_partition([2, 2, 3, 5]) is False",
            "can_partition([3, 3, 3, 4, 5]) is True",
            "can_partition([100, 100, 1]) is False",
            "can_partition([1, 2, 5]) is False",
            "can_partition([0]) is True",
            "can_partition(list(range(1, 41))) is True",
        ],
    },
    {
        "entry_point": "mst_weight",
        "tags": ["graphs", "union-find", "sorting"],
        "doc": r"""
            Return the total weight of a minimum spanning tree of the undirected graph
            with nodes ``0..n-1`` (``n >= 1``) and weighted edges ``(u, v, w)``, or
            -1 if the graph is not connected.

            >>> mst_weight(3, [(0, 1, 1), (1, 2, 2), (0, 2, 3)])
            3
        """,
        "src": r"""
            def mst_weight(n: int, edges: list[tuple[int, int, int]]) -> int:
                parent = list(range(n))

                def find(x: int) -> int:
                    while parent[x] != x:
                        parent[x] = parent[parent[x]]
                        x = parent[x]
                    return x

                total, used = 0, 0
                for u, v, w in sorted(edges, key=lambda edge: edge[2]):
                    ru, rv = find(u), find(v)
                    if ru != rv:
                        parent[ru] = rv
                        total += w
                        used += 1
                return total if used == n - 1 else -1
        """,
        "visible": ["mst_weight(2, []) == -1", "mst_weight(1, []) == 0"],
        "hidden": [
            "mst_weight(4, [(0, 1, 1), (1, 2, 1), (2, 3, 1), (3, 0, 1), (0, 2, 5)]) == 3",
            "mst_weight(4, [(0, 1, 10), (0, 2, 6), (0, 3, 5), (1, 3, 15), (2, 3, 4)]) == 19",
            "mst_weight(3, [(0, 1, -2), (1, 2, 3), (0, 2, 1)]) == -1",
            "mst_weight(3, [(0, 1, 1)]) == -1",
            "mst_weight(2, [(0, 1, 7), (0, 1, 3)]) == 3",
            "mst_weight(3, [(0, 0, 1), (0, 1, 2), (1, 2, 2)]) == 4",
        ],
    },
    {
        "entry_point": "next_permutation",
        "tags": ["lists", "math"],
        "doc": r"""
            Return (as a new list) the next permutation of ``nums`` in lexicographic
            order; after the last permutation comes the first (ascending) one.

            >>> next_permutation([1, 2, 3])
            [1, 3, 2]
        """,
        "src": r"""
            def next_permutation(nums: list[int]) -> list[int]:
                a = list(nums)
                i = len(a) - 2
                while i >= 0 and a[i] >= a[i + 1]:
                    i -= 1
                if i >= 0:
                    j = len(a) - 1
                    while a[j] <= a[i]:
                        j -= 1
                    a[i], a[j] = a[j], a[i]
                a[i + 1:] = reversed(a[i + 1:])
                return a
        """,
        "visible": ["next_permutation([3, 2, 1]) == [1, 2, 3]", "next_permutation([1]) == [1]"],
        "hidden": [
            "next_permutation([1, 1, 5]) == [1, 5, 1]",
            "next_permutation([]) == []",
            "next_permutation([1, 3, 2]) == [2, 1, 3]",
            "next_permutation([2, 3, 1]) == [3, 1, 2]",
            "next_permutation([1, 5, 8, 4, 7, 6, 5, 3, 1]) == [1, 5, 8, 5, 1, 3, 4, 6, 7]",
            "next_permutation([5, 1, 1]) == [1, 1, 5]",
            "next_permutation([2, 2]) == [2, 2]",
        ],
    },
    {
        "entry_point": "sliding_max",
        "tags": ["lists", "sliding-window"],
        "doc": r"""
            Return the maximum of every window of ``k`` consecutive elements of
            ``nums`` (``k >= 1``), in order; [] if ``k`` exceeds the length. Aim for
            linear time.

            >>> sliding_max([1, 3, -1, -3, 5, 3, 6, 7], 3)
            [3, 3, 5, 5, 6, 7]
        """,
        "src": r"""
            def sliding_max(nums: list[int], k: int) -> list[int]:
                from collections import deque

                window: deque[int] = deque()
                out = []
                for i, x in enumerate(nums):
                    while window and nums[window[-1]] <= x:
                        window.pop()
                    window.append(i)
                    if window[0] <= i - k:
                        window.popleft()
                    if i >= k - 1:
                        out.append(nums[window[0]])
                return out
        """,
        "visible": ["sliding_max([1], 1) == [1]", "sliding_max([4, 2], 3) == []"],
        "hidden": [
            "sliding_max([], 2) == []",
            "sliding_max([9, 8, 7, 6], 2) == [9, 8, 7]",
            "sliding_max([1, 2, 3, 4], 4) == [4]",
            "sliding_max([2, 2, 2], 1) == [2, 2, 2]",
            "sliding_max([5, 1, 5, 1, 5], 2) == [5, 5, 5, 5]",
            "sliding_max(list(range(2000)), 1000) == list(range(999, 2000))",
        ],
    },
    {
        "entry_point": "count_inversions",
        "tags": ["sorting", "recursion"],
        "doc": r"""
            Count the pairs ``i < j`` with ``nums[i] > nums[j]``. Aim for
            O(n log n), e.g. with merge sort.

            >>> count_inversions([2, 4, 1, 3, 5])
            3
        """,
        "src": r"""
            def count_inversions(nums: list[int]) -> int:
                def sort_count(a: list[int]) -> tuple[list[int], int]:
                    if len(a) <= 1:
                        return a, 0
                    mid = len(a) // 2
                    left, x = sort_count(a[:mid])
                    right, y = sort_count(a[mid:])
                    merged, count, i, j = [], x + y, 0, 0
                    while i < len(left) and j < len(right):
                        if right[j] < left[i]:
                            merged.append(right[j])
                            count += len(left) - i
                            j += 1
                        else:
                            merged.append(left[i])
                            i += 1
                    return merged + left[i:] + right[j:], count

                return sort_count(list(nums))[1]
        """,
        "visible": ["count_inversions([]) == 0", "count_inversions([1, 2, 3]) == 0"],
        "hidden": [
            "count_inversions([3, 2, 1]) == 3",
            "count_inversions([1, 1, 1]) == 0",
            "count_inversions([5, 4, 3, 2, 1]) == 10",
            "count_inversions([2, 1, 2, 1]) == 3",
            "count_inversions(list(range(2000, 0, -1))) == 2000 * 1999 // 2",
            "count_inversions([1, 3, 2, 3, 1]) == 4",
        ],
    },
    {
        "entry_point": "longest_consecutive",
        "tags": ["lists", "dicts"],
        "doc": r"""
            Return the length of the longest run of consecutive integers that all
            occur in ``nums`` (in any order, duplicates allowed). Aim for linear time.

            >>> longest_consecutive([100, 4, 200, 1, 3, 2])
            4
        """,
        "src": r"""
            def longest_consecutive(nums: list[int]) -> int:
                values = set(nums)
                best = 0
                for x in values:
                    if x - 1 not in values:
                        end = x
                        while end + 1 in values:
                            end += 1
                        best = max(best, end - x + 1)
                return best
        """,
        "visible": ["longest_consecutive([]) == 0", "longest_consecutive([5]) == 1"],
        "hidden": [
            "longest_consecutive([0, 3, 7, 2, 5, 8, 4, 6, 0, 1]) == 9",
            "longest_consecutive([1, 2, 0, 1]) == 3",
            "longest_consecutive([10, 5, 12, 3, 55, 30, 4, 11, 2]) == 4",
            "longest_consecutive([-1, -2, -3, 7]) == 3",
            "longest_consecutive([1, 3, 5]) == 1",
            "longest_consecutive(list(range(0, 20000, 2)) + list(range(5000, 5100))) == 101",
        ],
    },
]
