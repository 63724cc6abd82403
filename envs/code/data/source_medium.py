"""Medium code tasks: loops, dicts, sorting with keys, small parsers and matrix work.

Plain data consumed by ``build.py``; see its docstring for the entry format.
"""

TASKS = [
    {
        "entry_point": "rle_encode",
        "tags": ["strings", "parsing"],
        "doc": r"""
            Run-length encode ``s``: each run of a repeated character becomes the
            character followed by the run length, with the length left out when it is 1.

            >>> rle_encode("aaabcc")
            'a3bc2'
        """,
        "src": r"""
            def rle_encode(s: str) -> str:
                from itertools import groupby

                out = []
                for ch, group in groupby(s):
                    n = len(list(group))
                    out.append(ch if n == 1 else f"{ch}{n}")
                return "".join(out)
        """,
        "visible": ["rle_encode('') == ''", "rle_encode('abc') == 'abc'"],
        "hidden": [
            "rle_encode('aaaa') == 'a4'",
            "rle_encode('aabbaa') == 'a2b2a2'",
            "rle_encode('a' * 12) == 'a12'",
            "rle_encode('xyyz') == 'xy2z'",
            "rle_encode('  ') == ' 2'",
            "rle_encode('a' + 'b' * 10 + 'c') == 'ab10c'",
        ],
    },
    {
        "entry_point": "rle_decode",
        "tags": ["strings", "parsing"],
        "doc": r"""
            Decode a run-length string: each non-digit character may be followed by a
            decimal repeat count (one or more digits); no count means 1.

            >>> rle_decode("a3bc2")
            'aaabcc'
        """,
        "src": r"""
            def rle_decode(s: str) -> str:
                import re

                return "".join(ch * int(n or 1) for ch, n in re.findall(r"(\D)(\d*)", s))
        """,
        "visible": ["rle_decode('') == ''", "rle_decode('x2y') == 'xxy'"],
        "hidden": [
            "rle_decode('a12') == 'a' * 12",
            "rle_decode('ab10c') == 'a' + 'b' * 10 + 'c'",
            "rle_decode('abc') == 'abc'",
            "rle_decode(' 3') == '   '",
            "rle_decode('z1') == 'z'",
            "rle_decode('a2b2a2') == 'aabbaa'",
        ],
    },
    {
        "entry_point": "group_anagrams",
        "tags": ["strings", "dicts", "sorting"],
        "doc": r"""
            Group ``words`` that are anagrams of each other (case-sensitive).

            Each group is sorted, and the groups are sorted by their first word.

            >>> group_anagrams(["eat", "tea", "tan", "ate", "nat", "bat"])
            [['ate', 'eat', 'tea'], ['bat'], ['nat', 'tan']]
        """,
        "src": r"""
            def group_anagrams(words: list[str]) -> list[list[str]]:
                groups: dict[str, list[str]] = {}
                for w in words:
                    groups.setdefault("".join(sorted(w)), []).append(w)
                return sorted(sorted(g) for g in groups.values())
        """,
        "visible": ["group_anagrams([]) == []", "group_anagrams(['a']) == [['a']]"],
        "hidden": [
            "group_anagrams(['ab', 'ba', 'ab']) == [['ab', 'ab', 'ba']]",
            "group_anagrams(['abc', 'def']) == [['abc'], ['def']]",
            "group_anagrams(['listen', 'silent', 'enlist', 'google']) == "
            "[['enlist', 'listen', 'silent'], ['google']]",
            "group_anagrams(['', '']) == [['', '']]",
            "group_anagrams(['b', 'a']) == [['a'], ['b']]",
            "group_anagrams(['Tea', 'eat']) == [['Tea'], ['eat']]",
        ],
    },
    {
        "entry_point": "top_words",
        "tags": ["strings", "dicts", "sorting"],
        "doc": r"""
            Return the ``k`` most frequent words of ``text`` as ``(word, count)`` pairs.

            Words are maximal runs of the letters a-z after lower-casing; anything
            else separates words. Order by count descending, then word ascending.

            >>> top_words("the cat and the hat", 2)
            [('the', 2), ('and', 1)]
        """,
        "src": r"""
            def top_words(text: str, k: int) -> list[tuple[str, int]]:
                import re
                from collections import Counter

                counts = Counter(re.findall(r"[a-z]+", text.lower()))
                return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:k]
        """,
        "visible": ["top_words('', 3) == []", "top_words('a a b', 1) == [('a', 2)]"],
        "hidden": [
            "top_words('b a', 5) == [('a', 1), ('b', 1)]",
            "top_words('Dog dog DOG cat', 2) == [('dog', 3), ('cat', 1)]",
            "top_words(\"it's it is\", 2) == [('it', 2), ('is', 1)]",
            "top_words('x y z', 0) == []",
            "top_words('one, two; two... three three three!', 3) == "
            "[('three', 3), ('two', 2), ('one', 1)]",
            "top_words('a1b2c', 5) == [('a', 1), ('b', 1), ('c', 1)]",
        ],
    },
    {
        "entry_point": "caesar",
        "tags": ["strings"],
        "doc": r"""
            Shift every ASCII letter of ``s`` by ``k`` places in the alphabet, wrapping
            around and keeping its case; other characters are unchanged. ``k`` may be
            negative or larger than 26.

            >>> caesar("Hello, World!", 3)
            'Khoor, Zruog!'
        """,
        "src": r"""
            def caesar(s: str, k: int) -> str:
                out = []
                for ch in s:
                    if "a" <= ch <= "z" or "A" <= ch <= "Z":
                        base = ord("a") if ch.islower() else ord("A")
                        out.append(chr(base + (ord(ch) - base + k) % 26))
                    else:
                        out.append(ch)
                return "".join(out)
        """,
        "visible": ["caesar('abc', 1) == 'bcd'", "caesar('xyz', 3) == 'abc'"],
        "hidden": [
            "caesar('ABC', -1) == 'ZAB'",
            "caesar('abc', 26) == 'abc'",
            "caesar('abc', 27) == 'bcd'",
            "caesar('Hello', -29) == 'Ebiil'",
            "caesar('123 !', 5) == '123 !'",
            "caesar('', 4) == ''",
            "caesar('Zz', 1) == 'Aa'",
        ],
    },
    {
        "entry_point": "roman_to_int",
        "tags": ["parsing", "strings"],
        "doc": r"""
            Convert a valid Roman numeral (I, V, X, L, C, D, M with subtractive pairs
            such as IV and CM) to an integer.

            >>> roman_to_int("XIV")
            14
        """,
        "src": r"""
            def roman_to_int(s: str) -> int:
                values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
                total = 0
                for i, ch in enumerate(s):
                    v = values[ch]
                    if i + 1 < len(s) and values[s[i + 1]] > v:
                        total -= v
                    else:
                        total += v
                return total
        """,
        "visible": ["roman_to_int('III') == 3", "roman_to_int('IV') == 4"],
        "hidden": [
            "roman_to_int('IX') == 9",
            "roman_to_int('LVIII') == 58",
            "roman_to_int('MCMXCIV') == 1994",
            "roman_to_int('MMXXIV') == 2024",
            "roman_to_int('XL') == 40",
            "roman_to_int('CDXLIV') == 444",
            "roman_to_int('MMMCMXCIX') == 3999",
        ],
    },
    {
        "entry_point": "int_to_roman",
        "tags": ["strings", "math"],
        "doc": r"""
            Write ``n`` (1 to 3999) as a Roman numeral using subtractive notation.

            >>> int_to_roman(14)
            'XIV'
        """,
        "src": r"""
            def int_to_roman(n: int) -> str:
                table = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"),
                         (90, "XC"), (50, "L"), (40, "XL"), (10, "X"), (9, "IX"),
                         (5, "V"), (4, "IV"), (1, "I")]
                out = []
                for value, symbol in table:
                    count, n = divmod(n, value)
                    out.append(symbol * count)
                return "".join(out)
        """,
        "visible": ["int_to_roman(3) == 'III'", "int_to_roman(9) == 'IX'"],
        "hidden": [
            "int_to_roman(4) == 'IV'",
            "int_to_roman(58) == 'LVIII'",
            "int_to_roman(1994) == 'MCMXCIV'",
            "int_to_roman(3999) == 'MMMCMXCIX'",
            "int_to_roman(40) == 'XL'",
            "int_to_roman(444) == 'CDXLIV'",
            "int_to_roman(1000) == 'M'",
        ],
    },
    {
        "entry_point": "camel_to_snake",
        "tags": ["strings", "parsing"],
        "doc": r"""
            Convert a camelCase or PascalCase identifier to snake_case.

            A new word starts at an upper-case letter that follows a lower-case letter
            or digit. A run of capitals is an acronym: it forms one word, except that
            its last capital starts the next word when a lower-case letter follows.

            >>> camel_to_snake("loadXMLFile")
            'load_xml_file'
        """,
        "src": r"""
            def camel_to_snake(name: str) -> str:
                import re

                name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
                name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
                return name.lower()
        """,
        "visible": [
            "camel_to_snake('camelCase') == 'camel_case'",
            "camel_to_snake('getX') == 'get_x'",
        ],
        "hidden": [
            "camel_to_snake('parseHTTPResponse') == 'parse_http_response'",
            "camel_to_snake('HTTPServer') == 'http_server'",
            "camel_to_snake('Simple') == 'simple'",
            "camel_to_snake('version2Beta') == 'version2_beta'",
            "camel_to_snake('already_snake') == 'already_snake'",
            "camel_to_snake('userID') == 'user_id'",
            "camel_to_snake('') == ''",
        ],
    },
    {
        "entry_point": "merge_sorted",
        "tags": ["lists", "sorting"],
        "doc": r"""
            Merge two ascending lists into one ascending list in linear time.

            >>> merge_sorted([1, 3, 5], [2, 4])
            [1, 2, 3, 4, 5]
        """,
        "src": r"""
            def merge_sorted(a: list[int], b: list[int]) -> list[int]:
                out, i, j = [], 0, 0
                while i < len(a) and j < len(b):
                    if b[j] < a[i]:
                        out.append(b[j])
                        j += 1
                    else:
                        out.append(a[i])
                        i += 1
                return out + a[i:] + b[j:]
        """,
        "visible": ["merge_sorted([], []) == []", "merge_sorted([], [1, 2]) == [1, 2]"],
        "hidden": [
            "merge_sorted([1, 2], []) == [1, 2]",
            "merge_sorted([1, 1], [1]) == [1, 1, 1]",
            "merge_sorted([-5, 0, 5], [-6, 6]) == [-6, -5, 0, 5, 6]",
            "merge_sorted([1, 2, 3], [4, 5, 6]) == [1, 2, 3, 4, 5, 6]",
            "merge_sorted([4, 5, 6], [1, 2, 3]) == [1, 2, 3, 4, 5, 6]",
            "merge_sorted([2, 2, 9], [2, 3]) == [2, 2, 2, 3, 9]",
        ],
    },
    {
        "entry_point": "balanced",
        "tags": ["strings", "parsing"],
        "doc": r"""
            Return True if the brackets ``()``, ``[]`` and ``{}`` in ``s`` are balanced
            and properly nested. All other characters are ignored.

            >>> balanced("f(a[i]) {}")
            True
        """,
        "src": r"""
            def balanced(s: str) -> bool:
                pairs = {")": "(", "]": "[", "}": "{"}
                stack = []
                for ch in s:
                    if ch in "([{":
                        stack.append(ch)
                    elif ch in pairs:
                        if not stack or stack.pop() != pairs[ch]:
                            return False
                return not stack
        """,
        "visible": ["balanced('([]{})') is True", "balanced('(]') is False"],
        "hidden": [
            "balanced('') is True",
            "balanced('(((') is False",
            "balanced('a(b[c]d)e') is True",
            "balanced(')(') is False",
            "balanced('{[()()]}') is True",
            "balanced('([)]') is False",
            "balanced('}') is False",
            "balanced('no brackets') is True",
        ],
    },
    {
        "entry_point": "compress_ranges",
        "tags": ["lists", "strings", "sorting"],
        "doc": r"""
            Describe a collection of integers as comma-separated ranges.

            The input may be unsorted and contain duplicates. Runs of consecutive
            integers become ``start-end``; single values stand alone.

            >>> compress_ranges([1, 2, 3, 5, 7, 8])
            '1-3,5,7-8'
        """,
        "src": r"""
            def compress_ranges(nums: list[int]) -> str:
                values = sorted(set(nums))
                parts, i = [], 0
                while i < len(values):
                    j = i
                    while j + 1 < len(values) and values[j + 1] == values[j] + 1:
                        j += 1
                    parts.append(str(values[i]) if i == j else f"{values[i]}-{values[j]}")
                    i = j + 1
                return ",".join(parts)
        """,
        "visible": ["compress_ranges([]) == ''", "compress_ranges([4]) == '4'"],
        "hidden": [
            "compress_ranges([1, 2]) == '1-2'",
            "compress_ranges([1, 3, 5]) == '1,3,5'",
            "compress_ranges([-3, -2, -1, 1]) == '-3--1,1'",
            "compress_ranges([0, 1, 2, 3, 4, 5]) == '0-5'",
            "compress_ranges([10, 11, 13, 14, 15, 20]) == '10-11,13-15,20'",
            "compress_ranges([3, 1, 2, 2]) == '1-3'",
        ],
    },
    {
        "entry_point": "expand_ranges",
        "tags": ["parsing", "lists"],
        "doc": r"""
            Expand a comma-separated list of non-negative integers and ranges ``a-b``
            into a list, keeping the order given. Spaces around items are allowed, a
            range with ``a > b`` counts down, and an empty string gives [].

            >>> expand_ranges("1-3,5")
            [1, 2, 3, 5]
        """,
        "src": r"""
            def expand_ranges(s: str) -> list[int]:
                out: list[int] = []
                for part in s.split(","):
                    part = part.strip()
                    if not part:
                        continue
                    if "-" in part:
                        a, b = (int(x) for x in part.split("-"))
                        step = 1 if a <= b else -1
                        out.extend(range(a, b + step, step))
                    else:
                        out.append(int(part))
                return out
        """,
        "visible": ["expand_ranges('') == []", "expand_ranges('7') == [7]"],
        "hidden": [
            "expand_ranges('0-0') == [0]",
            "expand_ranges('1-2, 4-6 ,9') == [1, 2, 4, 5, 6, 9]",
            "expand_ranges('10-12') == [10, 11, 12]",
            "expand_ranges('3,1') == [3, 1]",
            "expand_ranges('5-3') == [5, 4, 3]",
            "expand_ranges('2,2-3') == [2, 2, 3]",
        ],
    },
    {
        "entry_point": "spiral",
        "tags": ["lists", "matrix"],
        "doc": r"""
            Return the elements of a rectangular ``matrix`` in clockwise spiral order,
            starting at the top-left corner.

            >>> spiral([[1, 2, 3], [4, 5, 6]])
            [1, 2, 3, 6, 5, 4]
        """,
        "src": r"""
            def spiral(matrix: list[list[int]]) -> list[int]:
                out: list[int] = []
                rows = [list(r) for r in matrix]
                while rows:
                    out.extend(rows.pop(0))
                    rows = [list(r) for r in zip(*rows)][::-1]
                return out
        """,
        "visible": ["spiral([[1, 2], [3, 4]]) == [1, 2, 4, 3]", "spiral([]) == []"],
        "hidden": [
            "spiral([[1, 2, 3], [4, 5, 6], [7, 8, 9]]) == [1, 2, 3, 6, 9, 8, 7, 4, 5]",
            "spiral([[1, 2, 3, 4]]) == [1, 2, 3, 4]",
            "spiral([[1], [2], [3]]) == [1, 2, 3]",
            "spiral([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]) == "
            "[1, 2, 3, 4, 8, 12, 11, 10, 9, 5, 6, 7]",
            "spiral([[7]]) == [7]",
            "spiral([[1, 2], [3, 4], [5, 6]]) == [1, 2, 4, 6, 5, 3]",
            "spiral([[]]) == []",
        ],
    },
    {
        "entry_point": "rotate_clockwise",
        "tags": ["lists", "matrix"],
        "doc": r"""
            Return a new matrix: ``matrix`` (a rectangular list of rows) rotated 90
            degrees clockwise.

            >>> rotate_clockwise([[1, 2], [3, 4]])
            [[3, 1], [4, 2]]
        """,
        "src": r"""
            def rotate_clockwise(matrix: list[list]) -> list[list]:
                return [list(row) for row in zip(*matrix[::-1])]
        """,
        "visible": ["rotate_clockwise([]) == []", "rotate_clockwise([[1]]) == [[1]]"],
        "hidden": [
            "rotate_clockwise([[1, 2, 3], [4, 5, 6], [7, 8, 9]]) == "
            "[[7, 4, 1], [8, 5, 2], [9, 6, 3]]",
            "rotate_clockwise([[1, 2, 3]]) == [[1], [2], [3]]",
            "rotate_clockwise([[1], [2], [3]]) == [[3, 2, 1]]",
            "rotate_clockwise([[1, 2], [3, 4], [5, 6]]) == [[5, 3, 1], [6, 4, 2]]",
            "rotate_clockwise([['a', 'b'], ['c', 'd']]) == [['c', 'a'], ['d', 'b']]",
        ],
    },
    {
        "entry_point": "most_common_char",
        "tags": ["strings", "dicts"],
        "doc": r"""
            Return the most frequent non-space character of ``s``; ties go to the
            smallest character (by code point). Return "" if there is none.

            >>> most_common_char("hello")
            'l'
        """,
        "src": r"""
            def most_common_char(s: str) -> str:
                from collections import Counter

                counts = Counter(ch for ch in s if ch != " ")
                if not counts:
                    return ""
                return min(counts, key=lambda ch: (-counts[ch], ch))
        """,
        "visible": ["most_common_char('') == ''", "most_common_char('abab') == 'a'"],
        "hidden": [
            "most_common_char('   ') == ''",
            "most_common_char('banana') == 'a'",
            "most_common_char('zzz yy') == 'z'",
            "most_common_char('Aa') == 'A'",
            "most_common_char('mississippi') == 'i'",
            "most_common_char('112233') == '1'",
            "most_common_char('a b b') == 'b'",
        ],
    },
    {
        "entry_point": "parse_kv",
        "tags": ["parsing", "dicts", "strings"],
        "doc": r"""
            Parse ``key=value`` pairs separated by ``;`` into a dict.

            Keys and values are stripped of surrounding spaces; the value is everything
            after the first ``=``. Values that are integers (optionally signed) become
            ints. Blank segments are skipped and a repeated key keeps its last value.

            >>> parse_kv("a=1; b=two")
            {'a': 1, 'b': 'two'}
        """,
        "src": r"""
            def parse_kv(s: str) -> dict:
                import re

                out: dict = {}
                for part in s.split(";"):
                    if not part.strip():
                        continue
                    key, _, value = part.partition("=")
                    key, value = key.strip(), value.strip()
                    out[key] = int(value) if re.fullmatch(r"[+-]?[0-9]+", value) else value
                return out
        """,
        "visible": ["parse_kv('') == {}", "parse_kv('x=5') == {'x': 5}"],
        "hidden": [
            "parse_kv('a=1;a=2') == {'a': 2}",
            "parse_kv(' k = v ; ') == {'k': 'v'}",
            "parse_kv('n=-4; m=+7') == {'n': -4, 'm': 7}",
            "parse_kv('f=1.5') == {'f': '1.5'}",
            "parse_kv('e=') == {'e': ''}",
            "parse_kv('url=a=b') == {'url': 'a=b'}",
            "parse_kv(';;x=1;;') == {'x': 1}",
        ],
    },
    {
        "entry_point": "sort_words",
        "tags": ["sorting", "strings"],
        "doc": r"""
            Sort ``words`` by length, then alphabetically ignoring case, then by the
            exact string (so upper case comes first on a case-insensitive tie).

            >>> sort_words(["pear", "Fig", "apple", "kiwi"])
            ['Fig', 'kiwi', 'pear', 'apple']
        """,
        "src": r"""
            def sort_words(words: list[str]) -> list[str]:
                return sorted(words, key=lambda w: (len(w), w.lower(), w))
        """,
        "visible": ["sort_words([]) == []", "sort_words(['bb', 'a']) == ['a', 'bb']"],
        "hidden": [
            "sort_words(['b', 'A', 'a']) == ['A', 'a', 'b']",
            "sort_words(['ccc', 'bb', 'a']) == ['a', 'bb', 'ccc']",
            "sort_words(['Zed', 'abc', 'Abd']) == ['abc', 'Abd', 'Zed']",
            "sort_words(['same', 'same']) == ['same', 'same']",
            "sort_words(['', 'x', '']) == ['', '', 'x']",
            "sort_words(['banana', 'Cherry', 'apple']) == ['apple', 'banana', 'Cherry']",
        ],
    },
    {
        "entry_point": "rank_people",
        "tags": ["sorting"],
        "doc": r"""
            Given ``(name, age)`` pairs, return the names ordered by age (oldest
            first), breaking ties by name in ascending order.

            >>> rank_people([("Ann", 30), ("Bob", 41), ("Cy", 30)])
            ['Bob', 'Ann', 'Cy']
        """,
        "src": r"""
            def rank_people(people: list[tuple[str, int]]) -> list[str]:
                return [name for name, _ in sorted(people, key=lambda p: (-p[1], p[0]))]
        """,
        "visible": [
            "rank_people([]) == []",
            "rank_people([('Ann', 30), ('Bob', 25)]) == ['Ann', 'Bob']",
        ],
        "hidden": [
            "rank_people([('Bob', 30), ('Ann', 30)]) == ['Ann', 'Bob']",
            "rank_people([('Zoe', 1), ('Al', 2), ('Mo', 3)]) == ['Mo', 'Al', 'Zoe']",
            "rank_people([('X', 5)]) == ['X']",
            "rank_people([('b', 10), ('a', 10), ('c', 20)]) == ['c', 'a', 'b']",
            "rank_people([('eve', 0), ('Eve', 0)]) == ['Eve', 'eve']",
        ],
    },
    {
        "entry_point": "flatten",
        "tags": ["lists", "recursion"],
        "doc": r"""
            Flatten arbitrarily nested lists into one list of their non-list items,
            in order. Only lists are flattened; tuples and strings are items.

            >>> flatten([1, [2, [3, [4]]], 5])
            [1, 2, 3, 4, 5]
        """,
        "src": r"""
            def flatten(nested: list) -> list:
                out: list = []
                for item in nested:
                    if isinstance(item, list):
                        out.extend(flatten(item))
                    else:
                        out.append(item)
                return out
        """,
        "visible": ["flatten([]) == []", "flatten([1, 2]) == [1, 2]"],
        "hidden": [
            "flatten([[[]]]) == []",
            "flatten([[1], [[2]], [[[3]]]]) == [1, 2, 3]",
            "flatten(['ab', ['cd']]) == ['ab', 'cd']",
            "flatten([(1, 2), [3]]) == [(1, 2), 3]",
            "flatten([[], [1, [], [2, []]]]) == [1, 2]",
            "flatten([0, [None]]) == [0, None]",
        ],
    },
    {
        "entry_point": "max_depth",
        "tags": ["lists", "recursion"],
        "doc": r"""
            Return how deeply lists are nested in ``x``: a non-list has depth 0 and a
            list has depth one more than its deepest element (an empty list is 1).

            >>> max_depth([1, [2, [3]]])
            3
        """,
        "src": r"""
            def max_depth(x: object) -> int:
                if not isinstance(x, list):
                    return 0
                return 1 + max((max_depth(item) for item in x), default=0)
        """,
        "visible": ["max_depth([]) == 1", "max_depth(5) == 0"],
        "hidden": [
            "max_depth([1, 2, 3]) == 1",
            "max_depth([[]]) == 2",
            "max_depth([[], [[]]]) == 3",
            "max_depth([1, [2], [3, [4, [5]]]]) == 4",
            "max_depth('abc') == 0",
            "max_depth([[1], [2], [3]]) == 2",
        ],
    },
    {
        "entry_point": "diagonal_sums",
        "tags": ["lists", "matrix"],
        "doc": r"""
            For a square ``matrix`` return ``(main, anti)``: the sums of the main
            diagonal (top-left to bottom-right) and the anti-diagonal.

            >>> diagonal_sums([[1, 2], [3, 4]])
            (5, 5)
        """,
        "src": r"""
            def diagonal_sums(matrix: list[list[int]]) -> tuple[int, int]:
                n = len(matrix)
                main = sum(matrix[i][i] for i in range(n))
                anti = sum(matrix[i][n - 1 - i] for i in range(n))
                return (main, anti)
        """,
        "visible": ["diagonal_sums([[5]]) == (5, 5)", "diagonal_sums([]) == (0, 0)"],
        "hidden": [
            "diagonal_sums([[1, 2, 3], [4, 5, 6], [7, 8, 9]]) == (15, 15)",
            "diagonal_sums([[1, 0, 0], [0, 2, 0], [0, 0, 3]]) == (6, 2)",
            "diagonal_sums([[1, 2], [3, 5]]) == (6, 5)",
            "diagonal_sums([[-1, 2], [3, -4]]) == (-5, 5)",
            "diagonal_sums([[0, 1], [1, 0]]) == (0, 2)",
        ],
    },
    {
        "entry_point": "pascal_row",
        "tags": ["math", "lists"],
        "doc": r"""
            Return row ``n`` (counting from 0) of Pascal's triangle.

            >>> pascal_row(3)
            [1, 3, 3, 1]
        """,
        "src": r"""
            def pascal_row(n: int) -> list[int]:
                row = [1]
                for k in range(n):
                    row.append(row[-1] * (n - k) // (k + 1))
                return row
        """,
        "visible": ["pascal_row(0) == [1]", "pascal_row(1) == [1, 1]"],
        "hidden": [
            "pascal_row(2) == [1, 2, 1]",
            "pascal_row(4) == [1, 4, 6, 4, 1]",
            "pascal_row(6) == [1, 6, 15, 20, 15, 6, 1]",
            "pascal_row(10)[5] == 252",
            "sum(pascal_row(20)) == 2 ** 20",
            "len(pascal_row(30)) == 31 and pascal_row(30)[15] == 155117520 "
            "and sum(pascal_row(30)) == 2 ** 30",
        ],
    },
    {
        "entry_point": "prime_factors",
        "tags": ["math"],
        "doc": r"""
            Return the prime factors of ``n`` in ascending order, repeated according
            to multiplicity; numbers below 2 have none.

            >>> prime_factors(12)
            [2, 2, 3]
        """,
        "src": r"""
            def prime_factors(n: int) -> list[int]:
                out, p = [], 2
                while n >= 2 and p * p <= n:
                    while n % p == 0:
                        out.append(p)
                        n //= p
                    p += 1
                if n >= 2:
                    out.append(n)
                return out
        """,
        "visible": ["prime_factors(1) == []", "prime_factors(2) == [2]"],
        "hidden": [
            "prime_factors(97) == [97]",
            "prime_factors(100) == [2, 2, 5, 5]",
            "prime_factors(360) == [2, 2, 2, 3, 3, 5]",
            "prime_factors(0) == []",
            "prime_factors(1001) == [7, 11, 13]",
            "prime_factors(1024) == [2] * 10",
            "prime_factors(600851475143) == [71, 839, 1471, 6857]",
        ],
    },
    {
        "entry_point": "is_prime",
        "tags": ["math"],
        "doc": r"""
            Return True if ``n`` is a prime number. Must handle ``n`` up to about
            ``2**31`` quickly.

            >>> is_prime(13)
            True
        """,
        "src": r"""
            def is_prime(n: int) -> bool:
                if n < 2:
                    return False
                if n % 2 == 0:
                    return n == 2
                d = 3
                while d * d <= n:
                    if n % d == 0:
                        return False
                    d += 2
                return True
        """,
        "visible": ["is_prime(2) is True", "is_prime(1) is False"],
        "hidden": [
            "is_prime(0) is False",
            "is_prime(-7) is False",
            "is_prime(97) is True",
            "is_prime(100) is False",
            "is_prime(7919) is True",
            "is_prime(7917) is False",
            "is_prime(25) is False",
            "is_prime(2147483647) is True",
        ],
    },
    {
        "entry_point": "primes_upto",
        "tags": ["math", "lists"],
        "doc": r"""
            Return all primes less than or equal to ``n``, in ascending order.

            >>> primes_upto(10)
            [2, 3, 5, 7]
        """,
        "src": r"""
            def primes_upto(n: int) -> list[int]:
                if n < 2:
                    return []
                sieve = bytearray([1]) * (n + 1)
                sieve[0] = sieve[1] = 0
                for p in range(2, int(n ** 0.5) + 1):
                    if sieve[p]:
                        sieve[p * p::p] = bytearray(len(range(p * p, n + 1, p)))
                return [i for i, flag in enumerate(sieve) if flag]
        """,
        "visible": ["primes_upto(1) == []", "primes_upto(2) == [2]"],
        "hidden": [
            "primes_upto(0) == []",
            "primes_upto(30) == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]",
            "len(primes_upto(1000)) == 168 and primes_upto(1000)[-1] == 997 "
            "and sum(primes_upto(1000)) == 76127",
            "primes_upto(100)[-1] == 97",
            "primes_upto(3) == [2, 3]",
            "primes_upto(-5) == []",
            "primes_upto(49)[-3:] == [41, 43, 47]",
        ],
    },
    {
        "entry_point": "collatz_steps",
        "tags": ["math"],
        "doc": r"""
            Count the steps needed to reach 1 from ``n >= 1`` by repeatedly replacing
            ``n`` with ``n // 2`` if it is even or ``3 * n + 1`` if it is odd.

            >>> collatz_steps(6)
            8
        """,
        "src": r"""
            def collatz_steps(n: int) -> int:
                steps = 0
                while n != 1:
                    n = n // 2 if n % 2 == 0 else 3 * n + 1
                    steps += 1
                return steps
        """,
        "visible": ["collatz_steps(1) == 0", "collatz_steps(2) == 1"],
        "hidden": [
            "collatz_steps(3) == 7",
            "collatz_steps(7) == 16",
            "collatz_steps(27) == 111",
            "collatz_steps(97) == 118",
            "collatz_steps(16) == 4",
        ],
    },
    {
        "entry_point": "number_to_words",
        "tags": ["strings", "math"],
        "doc": r"""
            Spell out ``n`` (0 to 999) in lower-case English words.

            Tens and units are joined with a hyphen (``forty-two``); hundreds are
            followed by the rest without "and" (``one hundred one``).

            >>> number_to_words(342)
            'three hundred forty-two'
        """,
        "src": r"""
            def number_to_words(n: int) -> str:
                ones = ["zero", "one", "two", "three", "four", "five", "six", "seven",
                        "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen",
                        "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
                tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy",
                        "eighty", "ninety"]

                def below_100(m: int) -> str:
                    if m < 20:
                        return ones[m]
                    word = tens[m // 10]
                    return word if m % 10 == 0 else f"{word}-{ones[m % 10]}"

                if n < 100:
                    return below_100(n)
                head = f"{ones[n // 100]} hundred"
                return head if n % 100 == 0 else f"{head} {below_100(n % 100)}"
        """,
        "visible": ["number_to_words(0) == 'zero'", "number_to_words(15) == 'fifteen'"],
        "hidden": [
            "number_to_words(7) == 'seven'",
            "number_to_words(20) == 'twenty'",
            "number_to_words(21) == 'twenty-one'",
            "number_to_words(100) == 'one hundred'",
            "number_to_words(101) == 'one hundred one'",
            "number_to_words(999) == 'nine hundred ninety-nine'",
            "number_to_words(510) == 'five hundred ten'",
            "number_to_words(80) == 'eighty'",
        ],
    },
    {
        "entry_point": "is_ipv4",
        "tags": ["parsing", "strings"],
        "doc": r"""
            Return True if ``s`` is a dotted-quad IPv4 address: exactly four parts,
            each made of ASCII digits only, with value 0-255 and no leading zero
            (except the single digit ``0``).

            >>> is_ipv4("192.168.0.1")
            True
        """,
        "src": r"""
            def is_ipv4(s: str) -> bool:
                parts = s.split(".")
                if len(parts) != 4:
                    return False
                for part in parts:
                    if not part or any(ch not in "0123456789" for ch in part):
                        return False
                    if (len(part) > 1 and part[0] == "0") or int(part) > 255:
                        return False
                return True
        """,
        "visible": ["is_ipv4('256.1.1.1') is False", "is_ipv4('0.0.0.0') is True"],
        "hidden": [
            "is_ipv4('255.255.255.255') is True",
            "is_ipv4('01.2.3.4') is False",
            "is_ipv4('1.2.3') is False",
            "is_ipv4('1.2.3.4.5') is False",
            "is_ipv4('a.b.c.d') is False",
            "is_ipv4('1..2.3') is False",
            "is_ipv4('1.2.3.-4') is False",
            "is_ipv4(' 1.2.3.4') is False",
            "is_ipv4('10.0.10.1') is True",
        ],
    },
    {
        "entry_point": "parse_duration",
        "tags": ["parsing"],
        "doc": r"""
            Convert a duration such as ``"1h30m15s"`` to seconds.

            The string is a sequence of ``<integer><unit>`` components with units
            ``d``, ``h``, ``m`` and ``s``, in any order, optionally separated by
            spaces. An empty string is 0 seconds.

            >>> parse_duration("1h30m15s")
            5415
        """,
        "src": r"""
            def parse_duration(s: str) -> int:
                import re

                units = {"d": 86400, "h": 3600, "m": 60, "s": 1}
                return sum(int(n) * units[u] for n, u in re.findall(r"(\d+)([dhms])", s))
        """,
        "visible": ["parse_duration('45s') == 45", "parse_duration('2m') == 120"],
        "hidden": [
            "parse_duration('1d') == 86400",
            "parse_duration('1h') == 3600",
            "parse_duration('') == 0",
            "parse_duration('2h 5s') == 7205",
            "parse_duration('1d2h3m4s') == 93784",
            "parse_duration('90m') == 5400",
            "parse_duration('10s5m') == 310",
        ],
    },
    {
        "entry_point": "format_duration",
        "tags": ["strings", "math"],
        "doc": r"""
            Format a number of seconds as days, hours, minutes and seconds, e.g.
            ``"1h 2m 3s"``. Zero components are omitted; 0 seconds is ``"0s"``.

            >>> format_duration(3723)
            '1h 2m 3s'
        """,
        "src": r"""
            def format_duration(seconds: int) -> str:
                parts = []
                for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
                    count, seconds = divmod(seconds, size)
                    if count:
                        parts.append(f"{count}{unit}")
                return " ".join(parts) or "0s"
        """,
        "visible": ["format_duration(0) == '0s'", "format_duration(59) == '59s'"],
        "hidden": [
            "format_duration(60) == '1m'",
            "format_duration(3600) == '1h'",
            "format_duration(86400) == '1d'",
            "format_duration(90061) == '1d 1h 1m 1s'",
            "format_duration(7205) == '2h 5s'",
            "format_duration(172799) == '1d 23h 59m 59s'",
        ],
    },
    {
        "entry_point": "bucket_by_initial",
        "tags": ["dicts", "strings"],
        "doc": r"""
            Group ``words`` by their lower-cased first character, keeping the words'
            original order inside each group. Empty strings are skipped.

            >>> bucket_by_initial(["apple", "Avocado", "banana"])
            {'a': ['apple', 'Avocado'], 'b': ['banana']}
        """,
        "src": r"""
            def bucket_by_initial(words: list[str]) -> dict[str, list[str]]:
                out: dict[str, list[str]] = {}
                for w in words:
                    if w:
                        out.setdefault(w[0].lower(), []).append(w)
                return out
        """,
        "visible": ["bucket_by_initial([]) == {}", "bucket_by_initial(['x']) == {'x': ['x']}"],
        "hidden": [
            "bucket_by_initial(['', 'a']) == {'a': ['a']}",
            "bucket_by_initial(['Bee', 'bee', 'ant']) == {'b': ['Bee', 'bee'], 'a': ['ant']}",
            "bucket_by_initial(['1st', '2nd']) == {'1': ['1st'], '2': ['2nd']}",
            "bucket_by_initial(['cat', 'cow', 'Cat']) == {'c': ['cat', 'cow', 'Cat']}",
            "bucket_by_initial(['z', 'y', 'x']) == {'z': ['z'], 'y': ['y'], 'x': ['x']}",
        ],
    },
    {
        "entry_point": "two_sum",
        "tags": ["lists", "dicts"],
        "doc": r"""
            Find indices ``(i, j)`` with ``i < j`` and ``nums[i] + nums[j] == target``.

            Return the pair with the smallest ``j``; if several share it, the one with
            the smallest ``i``. Return None when no pair exists.

            >>> two_sum([2, 7, 11, 15], 9)
            (0, 1)
        """,
        "src": r"""
            def two_sum(nums: list[int], target: int) -> tuple[int, int] | None:
                first_index: dict[int, int] = {}
                for j, x in enumerate(nums):
                    if target - x in first_index:
                        return (first_index[target - x], j)
                    first_index.setdefault(x, j)
                return None
        """,
        "visible": ["two_sum([3, 2, 4], 6) == (1, 2)", "two_sum([1, 2], 10) is None"],
        "hidden": [
            "two_sum([], 0) is None",
            "two_sum([3, 3], 6) == (0, 1)",
            "two_sum([1, 5, 1, 5], 6) == (0, 1)",
            "two_sum([0, 4, 3, 0], 0) == (0, 3)",
            "two_sum([-1, -2, -3, -4, -5], -8) == (2, 4)",
            "two_sum([5, 1, 4, 1], 2) == (1, 3)",
            "two_sum([1, 2, 3, 4], 7) == (2, 3)",
            "two_sum([2, 2, 2], 4) == (0, 1)",
        ],
    },
    {
        "entry_point": "moving_average",
        "tags": ["lists", "math"],
        "doc": r"""
            Return the average of every window of ``k`` consecutive numbers of
            ``nums``, each rounded to two decimals. If ``k`` exceeds the length,
            return [].

            >>> moving_average([1, 2, 3, 4], 2)
            [1.5, 2.5, 3.5]
        """,
        "src": r"""
            def moving_average(nums: list[float], k: int) -> list[float]:
                if k > len(nums):
                    return []
                window = sum(nums[:k])
                out = [round(window / k, 2)]
                for i in range(k, len(nums)):
                    window += nums[i] - nums[i - k]
                    out.append(round(window / k, 2))
                return out
        """,
        "visible": ["moving_average([1, 2], 3) == []", "moving_average([5], 1) == [5.0]"],
        "hidden": [
            "moving_average([1, 2, 3], 3) == [2.0]",
            "moving_average([1, 1, 1, 1], 2) == [1.0, 1.0, 1.0]",
            "moving_average([1, 2, 4], 2) == [1.5, 3.0]",
            "moving_average([3, 1, 4, 1, 5], 3) == [2.67, 2.0, 3.33]",
            "moving_average([], 1) == []",
            "moving_average([10, 20, 30, 40, 50], 4) == [25.0, 35.0]",
        ],
    },
    {
        "entry_point": "common_prefix",
        "tags": ["strings"],
        "doc": r"""
            Return the longest string that every word in ``words`` starts with
            (case-sensitive); "" for an empty list.

            >>> common_prefix(["flower", "flow", "flight"])
            'fl'
        """,
        "src": r"""
            def common_prefix(words: list[str]) -> str:
                if not words:
                    return ""
                lo, hi = min(words), max(words)
                i = 0
                while i < len(lo) and lo[i] == hi[i]:
                    i += 1
                return lo[:i]
        """,
        "visible": ["common_prefix([]) == ''", "common_prefix(['same']) == 'same'"],
        "hidden": [
            "common_prefix(['dog', 'racecar', 'car']) == ''",
            "common_prefix(['ab', 'abc', 'abcd']) == 'ab'",
            "common_prefix(['', 'x']) == ''",
            "common_prefix(['prefix', 'prefix']) == 'prefix'",
            "common_prefix(['Abc', 'abc']) == ''",
            "common_prefix(['interview', 'internet', 'interval']) == 'inter'",
        ],
    },
    {
        "entry_point": "word_wrap",
        "tags": ["strings"],
        "doc": r"""
            Greedily wrap the words of ``text`` into lines of at most ``width``
            characters, words separated by single spaces. A word longer than
            ``width`` gets a line of its own and is not broken.

            >>> word_wrap("the quick brown fox", 10)
            ['the quick', 'brown fox']
        """,
        "src": r"""
            def word_wrap(text: str, width: int) -> list[str]:
                lines: list[str] = []
                current = ""
                for word in text.split():
                    if not current:
                        current = word
                    elif len(current) + 1 + len(word) <= width:
                        current += " " + word
                    else:
                        lines.append(current)
                        current = word
                if current:
                    lines.append(current)
                return lines
        """,
        "visible": ["word_wrap('', 5) == []", "word_wrap('hello', 10) == ['hello']"],
        "hidden": [
            "word_wrap('a b c d', 3) == ['a b', 'c d']",
            "word_wrap('abcdefghij xy', 5) == ['abcdefghij', 'xy']",
            "word_wrap('one two three', 7) == ['one two', 'three']",
            "word_wrap('  spaced   out  ', 20) == ['spaced out']",
            "word_wrap('aa bb cc', 5) == ['aa bb', 'cc']",
            "word_wrap('x y', 1) == ['x', 'y']",
        ],
    },
    {
        "entry_point": "longest_run",
        "tags": ["lists"],
        "doc": r"""
            Return ``(value, length)`` for the longest run of equal neighbouring
            elements in ``items`` (the earliest run wins ties), or None if empty.

            >>> longest_run([1, 1, 2, 2, 2, 3])
            (2, 3)
        """,
        "src": r"""
            def longest_run(items: list) -> tuple | None:
                best = None
                i = 0
                while i < len(items):
                    j = i
                    while j + 1 < len(items) and items[j + 1] == items[i]:
                        j += 1
                    if best is None or j - i + 1 > best[1]:
                        best = (items[i], j - i + 1)
                    i = j + 1
                return best
        """,
        "visible": ["longest_run([]) is None", "longest_run([5]) == (5, 1)"],
        "hidden": [
            "longest_run([1, 2, 3]) == (1, 1)",
            "longest_run([4, 4, 1, 1]) == (4, 2)",
            "longest_run(list('aabbbbccc')) == ('b', 4)",
            "longest_run([0, 0, 0, 0]) == (0, 4)",
            "longest_run([1, 2, 2, 1, 1, 1]) == (1, 3)",
            "longest_run([7, 8, 8]) == (8, 2)",
        ],
    },
    {
        "entry_point": "histogram",
        "tags": ["strings", "dicts", "sorting"],
        "doc": r"""
            Render ``counts`` as text bars, one line per key in sorted key order:
            the key left-justified to the longest key's width, then ``" | "``, then
            one ``*`` per count.

            >>> histogram({"b": 2, "apple": 3})
            ['apple | ***', 'b     | **']
        """,
        "src": r"""
            def histogram(counts: dict[str, int]) -> list[str]:
                width = max((len(k) for k in counts), default=0)
                return [f"{k.ljust(width)} | {'*' * counts[k]}" for k in sorted(counts)]
        """,
        "visible": ["histogram({}) == []", "histogram({'x': 1}) == ['x | *']"],
        "hidden": [
            "histogram({'a': 0}) == ['a | ']",
            "histogram({'bb': 1, 'a': 2}) == ['a  | **', 'bb | *']",
            "histogram({'z': 3, 'y': 3}) == ['y | ***', 'z | ***']",
            "histogram({'long': 1, 's': 5}) == ['long | *', 's    | *****']",
            "histogram({'k': 10}) == ['k | ' + '*' * 10]",
        ],
    },
    {
        "entry_point": "merge_counts",
        "tags": ["dicts"],
        "doc": r"""
            Merge a list of dicts of numbers by adding the values of shared keys.
            Keys whose total is zero are kept.

            >>> merge_counts([{"a": 1}, {"a": 2, "b": 1}])
            {'a': 3, 'b': 1}
        """,
        "src": r"""
            def merge_counts(dicts: list[dict]) -> dict:
                out: dict = {}
                for d in dicts:
                    for key, value in d.items():
                        out[key] = out.get(key, 0) + value
                return out
        """,
        "visible": ["merge_counts([]) == {}", "merge_counts([{}]) == {}"],
        "hidden": [
            "merge_counts([{'x': 5}, {'y': -5}]) == {'x': 5, 'y': -5}",
            "merge_counts([{'x': 1}, {'x': -1}]) == {'x': 0}",
            "merge_counts([{'a': 1, 'b': 2}, {'b': 3, 'c': 4}, {'c': 5}]) == "
            "{'a': 1, 'b': 5, 'c': 9}",
            "merge_counts([{1: 1}, {1: 1}, {1: 1}]) == {1: 3}",
            "merge_counts([{'a': 0.5}, {'a': 0.25}]) == {'a': 0.75}",
        ],
    },
    {
        "entry_point": "nested_get",
        "tags": ["dicts", "parsing"],
        "doc": r"""
            Follow a dotted ``path`` through nested dicts and lists and return the
            value found, or ``default`` if any step is missing.

            A segment selects a dict key (keys are strings) or, on a list, an index
            written in decimal digits.

            >>> nested_get({"a": {"b": [10, {"c": 7}]}}, "a.b.1.c")
            7
        """,
        "src": r"""
            def nested_get(data: object, path: str, default: object = None) -> object:
                current = data
                for segment in path.split("."):
                    if isinstance(current, dict):
                        if segment not in current:
                            return default
                        current = current[segment]
                    elif isinstance(current, list):
                        if not segment.isdecimal() or int(segment) >= len(current):
                            return default
                        current = current[int(segment)]
                    else:
                        return default
                return current
        """,
        "visible": ["nested_get({'x': 1}, 'x') == 1", "nested_get({'x': 1}, 'y', 0) == 0"],
        "hidden": [
            "nested_get({'a': {'b': 2}}, 'a.b') == 2",
            "nested_get({'a': [1, 2, 3]}, 'a.2') == 3",
            "nested_get({'a': [1, 2, 3]}, 'a.3', 'none') == 'none'",
            "nested_get({'a': {'b': 2}}, 'a.b.c', 'd') == 'd'",
            "nested_get({'1': 's'}, '1') == 's'",
            "nested_get({'a': [[0, 1], [2, 3]]}, 'a.1.0') == 2",
            "nested_get({'a': {'b': {}}}, 'a.b') == {}",
            "nested_get({}, '', 'empty') == 'empty'",
            "nested_get({'a': [5]}, 'a.-1', 'neg') == 'neg'",
        ],
    },
    {
        "entry_point": "flatten_dict",
        "tags": ["dicts", "recursion"],
        "doc": r"""
            Flatten nested dicts into one dict whose keys join the path with ``sep``.

            Only dicts are descended into; an empty nested dict is kept as a value.

            >>> flatten_dict({"a": {"b": 1, "c": {"d": 2}}, "e": 3})
            {'a.b': 1, 'a.c.d': 2, 'e': 3}
        """,
        "src": r"""
            def flatten_dict(d: dict, sep: str = ".") -> dict:
                out: dict = {}
                for key, value in d.items():
                    if isinstance(value, dict) and value:
                        for sub_key, sub_value in flatten_dict(value, sep).items():
                            out[f"{key}{sep}{sub_key}"] = sub_value
                    else:
                        out[key] = value
                return out
        """,
        "visible": ["flatten_dict({}) == {}", "flatten_dict({'a': 1}) == {'a': 1}"],
        "hidden": [
            "flatten_dict({'a': {'b': {'c': {}}}}) == {'a.b.c': {}}",
            "flatten_dict({'x': {'y': 1}}, '/') == {'x/y': 1}",
            "flatten_dict({'a': [1, {'b': 2}]}) == {'a': [1, {'b': 2}]}",
            "flatten_dict({'k': {'1': 1, '2': 2}}) == {'k.1': 1, 'k.2': 2}",
            "flatten_dict({'a': {'b': None}}) == {'a.b': None}",
            "flatten_dict({'p': {'q': {'r': {'s': 0}}}}) == {'p.q.r.s': 0}",
        ],
    },
    {
        "entry_point": "unflatten_dict",
        "tags": ["dicts", "parsing"],
        "doc": r"""
            Rebuild nested dicts from a flat dict whose keys are paths joined by
            ``sep``. Values that are already dicts are copied in unchanged.

            >>> unflatten_dict({"a.b": 1, "a.c": 2, "d": 3})
            {'a': {'b': 1, 'c': 2}, 'd': 3}
        """,
        "src": r"""
            def unflatten_dict(d: dict, sep: str = ".") -> dict:
                out: dict = {}
                for key, value in d.items():
                    *parents, leaf = key.split(sep)
                    node = out
                    for part in parents:
                        node = node.setdefault(part, {})
                    node[leaf] = value
                return out
        """,
        "visible": ["unflatten_dict({}) == {}", "unflatten_dict({'x': 1}) == {'x': 1}"],
        "hidden": [
            "unflatten_dict({'a.b.c': 1}) == {'a': {'b': {'c': 1}}}",
            "unflatten_dict({'a/b': 1, 'a/c': 2}, '/') == {'a': {'b': 1, 'c': 2}}",
            "unflatten_dict({'a.b': 1, 'c': {'d': 2}}) == {'a': {'b': 1}, 'c': {'d': 2}}",
            "unflatten_dict({'x.y': None}) == {'x': {'y': None}}",
            "unflatten_dict({'a.b': 1, 'a.c.d': 2, 'e': 3}) == "
            "{'a': {'b': 1, 'c': {'d': 2}}, 'e': 3}",
            "unflatten_dict({'a.b': 1}, '/') == {'a.b': 1}",
        ],
    },
    {
        "entry_point": "group_keys_by_value",
        "tags": ["dicts", "sorting"],
        "doc": r"""
            Map each value of ``d`` to the sorted list of keys that have it.

            >>> group_keys_by_value({"a": 1, "b": 2, "c": 1})
            {1: ['a', 'c'], 2: ['b']}
        """,
        "src": r"""
            def group_keys_by_value(d: dict) -> dict:
                out: dict = {}
                for key, value in d.items():
                    out.setdefault(value, []).append(key)
                return {value: sorted(keys) for value, keys in out.items()}
        """,
        "visible": ["group_keys_by_value({}) == {}", "group_keys_by_value({'x': 0}) == {0: ['x']}"],
        "hidden": [
            "group_keys_by_value({'b': 1, 'a': 1}) == {1: ['a', 'b']}",
            "group_keys_by_value({1: 'odd', 2: 'even', 3: 'odd'}) == {'odd': [1, 3], 'even': [2]}",
            "group_keys_by_value({'p': None, 'q': None}) == {None: ['p', 'q']}",
            "group_keys_by_value({'z': 5, 'y': 4, 'x': 5}) == {5: ['x', 'z'], 4: ['y']}",
            "group_keys_by_value({'k': (1, 2)}) == {(1, 2): ['k']}",
        ],
    },
    {
        "entry_point": "matmul",
        "tags": ["math", "matrix"],
        "doc": r"""
            Multiply matrix ``a`` (n x m) by matrix ``b`` (m x p), both given as lists
            of rows, and return the n x p product.

            >>> matmul([[1, 2], [3, 4]], [[5, 6], [7, 8]])
            [[19, 22], [43, 50]]
        """,
        "src": r"""
            def matmul(a: list[list[int]], b: list[list[int]]) -> list[list[int]]:
                columns = list(zip(*b))
                return [[sum(x * y for x, y in zip(row, col)) for col in columns] for row in a]
        """,
        "visible": [
            "matmul([[2]], [[3]]) == [[6]]",
            "matmul([[1, 2, 3]], [[1], [2], [3]]) == [[14]]",
        ],
        "hidden": [
            "matmul([[1], [2]], [[3, 4]]) == [[3, 4], [6, 8]]",
            "matmul([[1, 0], [0, 1]], [[9, 8], [7, 6]]) == [[9, 8], [7, 6]]",
            "matmul([[0, 0]], [[1], [1]]) == [[0]]",
            "matmul([[1, 2], [3, 4], [5, 6]], [[1, 0], [0, 1]]) == [[1, 2], [3, 4], [5, 6]]",
            "matmul([[-1, 2]], [[3], [4]]) == [[5]]",
            "matmul([[2, 0], [0, 2]], [[1, 2], [3, 4]]) == [[2, 4], [6, 8]]",
        ],
    },
    {
        "entry_point": "persistence",
        "tags": ["math"],
        "doc": r"""
            Return the multiplicative persistence of ``n >= 0``: how many times its
            digits must be multiplied together until a single digit remains.

            >>> persistence(39)
            3
        """,
        "src": r"""
            def persistence(n: int) -> int:
                steps = 0
                while n >= 10:
                    product = 1
                    for digit in str(n):
                        product *= int(digit)
                    n = product
                    steps += 1
                return steps
        """,
        "visible": ["persistence(4) == 0", "persistence(10) == 1"],
        "hidden": [
            "persistence(999) == 4",
            "persistence(25) == 2",
            "persistence(0) == 0",
            "persistence(277777788888899) == 11",
            "persistence(77) == 4",
        ],
    },
    {
        "entry_point": "luhn_valid",
        "tags": ["strings", "math"],
        "doc": r"""
            Check a number string with the Luhn checksum.

            Spaces are ignored. The string must otherwise contain only ASCII digits,
            and at least two of them. Working from the rightmost digit, every second
            digit is doubled (subtracting 9 if the result exceeds 9); the number is
            valid if the total is divisible by 10.

            >>> luhn_valid("4539 3195 0343 6467")
            True
        """,
        "src": r"""
            def luhn_valid(s: str) -> bool:
                digits = s.replace(" ", "")
                if len(digits) < 2 or any(ch not in "0123456789" for ch in digits):
                    return False
                total = 0
                for i, ch in enumerate(reversed(digits)):
                    d = int(ch)
                    if i % 2 == 1:
                        d = d * 2 - 9 if d > 4 else d * 2
                    total += d
                return total % 10 == 0
        """,
        "visible": ["luhn_valid('8273 1232 7352 0569') is False", "luhn_valid('0') is False"],
        "hidden": [
            "luhn_valid('00') is True",
            "luhn_valid('059') is True",
            "luhn_valid('59') is True",
            "luhn_valid('055 444 285') is True",
            "luhn_valid('055a 444 285') is False",
            "luhn_valid('79927398713') is True",
            "luhn_valid('79927398710') is False",
            "luhn_valid(' ') is False",
        ],
    },
    {
        "entry_point": "isbn10_valid",
        "tags": ["strings", "math"],
        "doc": r"""
            Check an ISBN-10. Hyphens are ignored; what remains must be 9 digits
            followed by a digit or ``X`` (worth 10). With the characters weighted
            10, 9, ..., 1 from the left, the weighted sum must be divisible by 11.

            >>> isbn10_valid("3-598-21508-8")
            True
        """,
        "src": r"""
            def isbn10_valid(s: str) -> bool:
                chars = s.replace("-", "")
                if len(chars) != 10:
                    return False
                if any(ch not in "0123456789" for ch in chars[:9]):
                    return False
                if chars[9] not in "0123456789X":
                    return False
                values = [10 if ch == "X" else int(ch) for ch in chars]
                return sum(v * w for v, w in zip(values, range(10, 0, -1))) % 11 == 0
        """,
        "visible": [
            "isbn10_valid('3-598-21508-9') is False",
            "isbn10_valid('3-598-21507-X') is True",
        ],
        "hidden": [
            "isbn10_valid('359821507X') is True",
            "isbn10_valid('3-598-2X507-9') is False",
            "isbn10_valid('3-598-21507-A') is False",
            "isbn10_valid('') is False",
            "isbn10_valid('3-598-21508-88') is False",
            "isbn10_valid('0-306-40615-2') is True",
            "isbn10_valid('0306406152') is True",
        ],
    },
    {
        "entry_point": "hex_to_rgb",
        "tags": ["parsing", "strings"],
        "doc": r"""
            Convert a CSS hex colour ``#rrggbb`` or the short form ``#rgb`` (case
            insensitive) to an ``(r, g, b)`` tuple of ints.

            >>> hex_to_rgb("#ff8800")
            (255, 136, 0)
        """,
        "src": r"""
            def hex_to_rgb(s: str) -> tuple[int, int, int]:
                digits = s.lstrip("#")
                if len(digits) == 3:
                    digits = "".join(ch * 2 for ch in digits)
                r, g, b = (int(digits[i:i + 2], 16) for i in (0, 2, 4))
                return (r, g, b)
        """,
        "visible": ["hex_to_rgb('#000') == (0, 0, 0)", "hex_to_rgb('#FFFFFF') == (255, 255, 255)"],
        "hidden": [
            "hex_to_rgb('#f80') == (255, 136, 0)",
            "hex_to_rgb('#123456') == (18, 52, 86)",
            "hex_to_rgb('#abc') == (170, 187, 204)",
            "hex_to_rgb('#0a0B0c') == (10, 11, 12)",
            "hex_to_rgb('#000001') == (0, 0, 1)",
        ],
    },
    {
        "entry_point": "rgb_to_hex",
        "tags": ["strings", "math"],
        "doc": r"""
            Format a colour as ``#rrggbb`` in lower case, first clamping each
            component to the range 0-255.

            >>> rgb_to_hex(255, 136, 0)
            '#ff8800'
        """,
        "src": r"""
            def rgb_to_hex(r: int, g: int, b: int) -> str:
                return "#" + "".join(f"{max(0, min(255, c)):02x}" for c in (r, g, b))
        """,
        "visible": ["rgb_to_hex(0, 0, 0) == '#000000'", "rgb_to_hex(18, 52, 86) == '#123456'"],
        "hidden": [
            "rgb_to_hex(300, -5, 16) == '#ff0010'",
            "rgb_to_hex(1, 2, 3) == '#010203'",
            "rgb_to_hex(255, 255, 255) == '#ffffff'",
            "rgb_to_hex(170, 187, 204) == '#aabbcc'",
            "rgb_to_hex(256, 0, 0) == '#ff0000'",
        ],
    },
    {
        "entry_point": "smart_title",
        "tags": ["strings"],
        "doc": r"""
            Title-case ``s``: each word gets an upper-case first letter and lower-case
            rest, except the minor words a, an, and, at, by, for, in, of, on, or, the
            and to, which stay lower-case unless they are the first or last word.
            Words are separated by whitespace and joined with single spaces.

            >>> smart_title("the lord of the rings")
            'The Lord of the Rings'
        """,
        "src": r"""
            def smart_title(s: str) -> str:
                minor = {"a", "an", "and", "at", "by", "for", "in", "of", "on", "or",
                         "the", "to"}
                words = s.split()
                out = []
                for i, word in enumerate(words):
                    lower = word.lower()
                    if lower in minor and 0 < i < len(words) - 1:
                        out.append(lower)
                    else:
                        out.append(lower[:1].upper() + lower[1:])
                return " ".join(out)
        """,
        "visible": ["smart_title('') == ''", "smart_title('war and peace') == 'War and Peace'"],
        "hidden": [
            "smart_title('of mice and men') == 'Of Mice and Men'",
            "smart_title('what is it for') == 'What Is It For'",
            "smart_title('A TALE OF TWO CITIES') == 'A Tale of Two Cities'",
            "smart_title('the') == 'The'",
            "smart_title('to be or not to be') == 'To Be or Not to Be'",
            "smart_title('  gone   with the wind ') == 'Gone With the Wind'",
        ],
    },
    {
        "entry_point": "pig_latin",
        "tags": ["strings"],
        "doc": r"""
            Translate each space-separated lower-case word of ``sentence`` to Pig
            Latin: a word starting with a vowel (a, e, i, o, u) gets ``way`` appended;
            otherwise its leading consonants move to the end followed by ``ay``
            (a word with no vowel just gets ``ay``).

            >>> pig_latin("hello apple")
            'ellohay appleway'
        """,
        "src": r"""
            def pig_latin(sentence: str) -> str:
                def convert(word: str) -> str:
                    for i, ch in enumerate(word):
                        if ch in "aeiou":
                            return word + "way" if i == 0 else word[i:] + word[:i] + "ay"
                    return word + "ay"

                return " ".join(convert(w) for w in sentence.split())
        """,
        "visible": ["pig_latin('') == ''", "pig_latin('eat') == 'eatway'"],
        "hidden": [
            "pig_latin('string') == 'ingstray'",
            "pig_latin('rhythm') == 'rhythmay'",
            "pig_latin('queen') == 'ueenqay'",
            "pig_latin('the quick fox') == 'ethay uickqay oxfay'",
            "pig_latin('a') == 'away'",
            "pig_latin('by') == 'byay'",
            "pig_latin('school') == 'oolschay'",
        ],
    },
    {
        "entry_point": "competition_rank",
        "tags": ["sorting", "lists"],
        "doc": r"""
            Rank ``scores`` (higher is better) with standard competition ranking:
            equal scores share a rank and the following rank skips accordingly
            ("1224" ranking). Return the ranks in input order.

            >>> competition_rank([90, 80, 90, 70])
            [1, 3, 1, 4]
        """,
        "src": r"""
            def competition_rank(scores: list[int]) -> list[int]:
                first_position: dict[int, int] = {}
                for position, score in enumerate(sorted(scores, reverse=True), 1):
                    first_position.setdefault(score, position)
                return [first_position[s] for s in scores]
        """,
        "visible": ["competition_rank([]) == []", "competition_rank([5]) == [1]"],
        "hidden": [
            "competition_rank([1, 2, 3]) == [3, 2, 1]",
            "competition_rank([7, 7, 7]) == [1, 1, 1]",
            "competition_rank([10, 20, 20, 5]) == [3, 1, 1, 4]",
            "competition_rank([3, 3, 1, 1]) == [1, 1, 3, 3]",
            "competition_rank([-1, 0]) == [2, 1]",
            "competition_rank([100, 90, 90, 90, 80]) == [1, 2, 2, 2, 5]",
        ],
    },
    {
        "entry_point": "next_greater",
        "tags": ["lists", "stack"],
        "doc": r"""
            For each element of ``nums`` return the first strictly greater element to
            its right, or -1 if there is none. Should run in linear time.

            >>> next_greater([2, 1, 3])
            [3, 3, -1]
        """,
        "src": r"""
            def next_greater(nums: list[int]) -> list[int]:
                out = [-1] * len(nums)
                stack: list[int] = []
                for i, x in enumerate(nums):
                    while stack and nums[stack[-1]] < x:
                        out[stack.pop()] = x
                    stack.append(i)
                return out
        """,
        "visible": ["next_greater([]) == []", "next_greater([1, 2]) == [2, -1]"],
        "hidden": [
            "next_greater([3, 2, 1]) == [-1, -1, -1]",
            "next_greater([1, 3, 2, 4]) == [3, 4, 4, -1]",
            "next_greater([5, 5, 5]) == [-1, -1, -1]",
            "next_greater([2, 7, 3, 5, 4, 6, 8]) == [7, 8, 5, 6, 6, 8, -1]",
            "next_greater([4]) == [-1]",
            "next_greater([1, 1, 2]) == [2, 2, -1]",
            "next_greater(list(range(5000, 0, -1)) + [9999])[0] == 9999",
        ],
    },
    {
        "entry_point": "max_profit",
        "tags": ["lists"],
        "doc": r"""
            ``prices[i]`` is a price on day ``i``. Return the best profit from buying
            on one day and selling on a later day, or 0 if no profit is possible.

            >>> max_profit([7, 1, 5, 3, 6, 4])
            5
        """,
        "src": r"""
            def max_profit(prices: list[int]) -> int:
                best, lowest = 0, float("inf")
                for price in prices:
                    lowest = min(lowest, price)
                    best = max(best, price - lowest)
                return best
        """,
        "visible": ["max_profit([7, 6, 4, 3, 1]) == 0", "max_profit([]) == 0"],
        "hidden": [
            "max_profit([5]) == 0",
            "max_profit([1, 2]) == 1",
            "max_profit([2, 4, 1, 7]) == 6",
            "max_profit([3, 3, 3]) == 0",
            "max_profit([1, 10, 0, 9]) == 9",
            "max_profit([2, 1, 2, 1, 0, 1, 2]) == 2",
        ],
    },
    {
        "entry_point": "max_subarray",
        "tags": ["lists", "dp"],
        "doc": r"""
            Return the largest sum of a non-empty contiguous slice of ``nums`` (0 for
            an empty list).

            >>> max_subarray([-2, 1, -3, 4, -1, 2, 1, -5, 4])
            6
        """,
        "src": r"""
            def max_subarray(nums: list[int]) -> int:
                if not nums:
                    return 0
                best = current = nums[0]
                for x in nums[1:]:
                    current = max(x, current + x)
                    best = max(best, current)
                return best
        """,
        "visible": ["max_subarray([1]) == 1", "max_subarray([]) == 0"],
        "hidden": [
            "max_subarray([-3, -1, -2]) == -1",
            "max_subarray([5, 4, -1, 7, 8]) == 23",
            "max_subarray([0, 0]) == 0",
            "max_subarray([-1, 3, -1, 3]) == 5",
            "max_subarray([2, -10, 3]) == 3",
            "max_subarray([-5]) == -5",
        ],
    },
    {
        "entry_point": "search_first",
        "tags": ["lists", "binary-search"],
        "doc": r"""
            Return the index of the first occurrence of ``target`` in the ascending
            list ``nums``, or -1 if absent. Use binary search (O(log n)).

            >>> search_first([1, 2, 2, 3], 2)
            1
        """,
        "src": r"""
            def search_first(nums: list[int], target: int) -> int:
                lo, hi = 0, len(nums)
                while lo < hi:
                    mid = (lo + hi) // 2
                    if nums[mid] < target:
                        lo = mid + 1
                    else:
                        hi = mid
                return lo if lo < len(nums) and nums[lo] == target else -1
        """,
        "visible": ["search_first([1, 3], 2) == -1", "search_first([5], 5) == 0"],
        "hidden": [
            "search_first([], 1) == -1",
            "search_first([1, 1, 1, 1], 1) == 0",
            "search_first([1, 2, 3, 4, 5], 5) == 4",
            "search_first([1, 2, 3], 0) == -1",
            "search_first([1, 2, 3], 4) == -1",
            "search_first([-5, -5, 0, 0, 0, 9], 0) == 2",
        ],
    },
    {
        "entry_point": "missing_number",
        "tags": ["math", "lists"],
        "doc": r"""
            ``nums`` holds ``n`` distinct integers taken from ``0..n``; exactly one
            value of that range is absent. Return it.

            >>> missing_number([3, 0, 1])
            2
        """,
        "src": r"""
            def missing_number(nums: list[int]) -> int:
                n = len(nums)
                return n * (n + 1) // 2 - sum(nums)
        """,
        "visible": ["missing_number([0]) == 1", "missing_number([1]) == 0"],
        "hidden": [
            "missing_number([0, 1]) == 2",
            "missing_number([9, 6, 4, 2, 3, 5, 7, 0, 1]) == 8",
            "missing_number([1, 2, 3]) == 0",
            "missing_number([2, 0]) == 1",
            "missing_number([]) == 0",
        ],
    },
    {
        "entry_point": "sort_by_frequency",
        "tags": ["sorting", "dicts"],
        "doc": r"""
            Sort ``nums`` so that more frequent values come first; values with equal
            frequency are in ascending order. Every occurrence is kept.

            >>> sort_by_frequency([4, 6, 4, 2, 6, 4])
            [4, 4, 4, 6, 6, 2]
        """,
        "src": r"""
            def sort_by_frequency(nums: list[int]) -> list[int]:
                from collections import Counter

                counts = Counter(nums)
                return sorted(nums, key=lambda x: (-counts[x], x))
        """,
        "visible": ["sort_by_frequency([]) == []", "sort_by_frequency([1, 2]) == [1, 2]"],
        "hidden": [
            "sort_by_frequency([3, 3, 1, 1, 2]) == [1, 1, 3, 3, 2]",
            "sort_by_frequency([5, 5, 5, -1]) == [5, 5, 5, -1]",
            "sort_by_frequency([2, 1, 2, 1]) == [1, 1, 2, 2]",
            "sort_by_frequency([0]) == [0]",
            "sort_by_frequency([9, 8, 7, 8, 9, 9]) == [9, 9, 9, 8, 8, 7]",
        ],
    },
    {
        "entry_point": "excel_column",
        "tags": ["math", "strings"],
        "doc": r"""
            Return the spreadsheet column label for the 1-based column number ``n``:
            1 is "A", 26 is "Z", 27 is "AA", and so on.

            >>> excel_column(28)
            'AB'
        """,
        "src": r"""
            def excel_column(n: int) -> str:
                out = []
                while n > 0:
                    n, r = divmod(n - 1, 26)
                    out.append(chr(ord("A") + r))
                return "".join(reversed(out))
        """,
        "visible": ["excel_column(1) == 'A'", "excel_column(26) == 'Z'"],
        "hidden": [
            "excel_column(27) == 'AA'",
            "excel_column(52) == 'AZ'",
            "excel_column(53) == 'BA'",
            "excel_column(702) == 'ZZ'",
            "excel_column(703) == 'AAA'",
            "excel_column(16384) == 'XFD'",
        ],
    },
    {
        "entry_point": "parse_csv_line",
        "tags": ["parsing", "strings"],
        "doc": r"""
            Split one CSV line into fields.

            Fields are separated by commas. A field may be wrapped in double quotes,
            in which case it can contain commas, and ``""`` inside it stands for one
            quote character. Whitespace is kept as is.

            >>> parse_csv_line('a,"b,c",d')
            ['a', 'b,c', 'd']
        """,
        "src": r"""
            def parse_csv_line(line: str) -> list[str]:
                fields, current, quoted, i = [], [], False, 0
                while i < len(line):
                    ch = line[i]
                    if quoted:
                        if ch == '"' and line[i + 1:i + 2] == '"':
                            current.append('"')
                            i += 1
                        elif ch == '"':
                            quoted = False
                        else:
                            current.append(ch)
                    elif ch == '"':
                        quoted = True
                    elif ch == ",":
                        fields.append("".join(current))
                        current = []
                    else:
                        current.append(ch)
                    i += 1
                fields.append("".join(current))
                return fields
        """,
        "visible": ["parse_csv_line('') == ['']", "parse_csv_line('x,y') == ['x', 'y']"],
        "hidden": [
            '''parse_csv_line('"he said ""hi""",2') == ['he said "hi"', '2']''',
            "parse_csv_line(',') == ['', '']",
            """parse_csv_line('"",a') == ['', 'a']""",
            "parse_csv_line('a, b') == ['a', ' b']",
            """parse_csv_line('"x,y,z"') == ['x,y,z']""",
            "parse_csv_line('one') == ['one']",
            """parse_csv_line('a,"",c,') == ['a', '', 'c', '']""",
        ],
    },
    {
        "entry_point": "add_minutes",
        "tags": ["parsing", "dates", "math"],
        "doc": r"""
            Add ``minutes`` (possibly negative) to a 24-hour clock time ``"HH:MM"``
            and return the new time in the same format, wrapping around midnight.

            >>> add_minutes("23:45", 30)
            '00:15'
        """,
        "src": r"""
            def add_minutes(clock: str, minutes: int) -> str:
                hours, mins = (int(x) for x in clock.split(":"))
                total = (hours * 60 + mins + minutes) % (24 * 60)
                return f"{total // 60:02d}:{total % 60:02d}"
        """,
        "visible": ["add_minutes('00:00', 0) == '00:00'", "add_minutes('09:05', 60) == '10:05'"],
        "hidden": [
            "add_minutes('12:00', -1) == '11:59'",
            "add_minutes('00:00', -1) == '23:59'",
            "add_minutes('10:10', 1440) == '10:10'",
            "add_minutes('23:59', 1) == '00:00'",
            "add_minutes('06:30', -2000) == '21:10'",
            "add_minutes('01:02', 3) == '01:05'",
        ],
    },
    {
        "entry_point": "day_of_year",
        "tags": ["dates", "parsing"],
        "doc": r"""
            Return the ordinal day (1-366) within its year of the Gregorian date
            ``"YYYY-MM-DD"``.

            >>> day_of_year("2024-02-10")
            41
        """,
        "src": r"""
            def day_of_year(date: str) -> int:
                year, month, day = (int(x) for x in date.split("-"))
                leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
                lengths = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
                return sum(lengths[:month - 1]) + day
        """,
        "visible": ["day_of_year('2024-01-01') == 1", "day_of_year('2023-12-31') == 365"],
        "hidden": [
            "day_of_year('2024-12-31') == 366",
            "day_of_year('2024-03-01') == 61",
            "day_of_year('2023-03-01') == 60",
            "day_of_year('1900-03-01') == 60",
            "day_of_year('2000-03-01') == 61",
            "day_of_year('2021-07-04') == 185",
        ],
    },
    {
        "entry_point": "anagram_starts",
        "tags": ["strings", "sliding-window"],
        "doc": r"""
            Return every index ``i`` where ``text[i:i + len(pattern)]`` is an anagram
            of the non-empty ``pattern``, in ascending order.

            >>> anagram_starts("cbaebabacd", "abc")
            [0, 6]
        """,
        "src": r"""
            def anagram_starts(text: str, pattern: str) -> list[int]:
                from collections import Counter

                k = len(pattern)
                target, window = Counter(pattern), Counter(text[:k])
                out = []
                for i in range(len(text) - k + 1):
                    if i:
                        window[text[i - 1]] -= 1
                        window[text[i + k - 1]] += 1
                    if +window == target:
                        out.append(i)
                return out
        """,
        "visible": ["anagram_starts('abab', 'ab') == [0, 1, 2]", "anagram_starts('a', 'ab') == []"],
        "hidden": [
            "anagram_starts('', 'a') == []",
            "anagram_starts('aaaa', 'aa') == [0, 1, 2]",
            "anagram_starts('abcabc', 'cab') == [0, 1, 2, 3]",
            "anagram_starts('hello', 'eh') == [0]",
            "anagram_starts('hello', 'lo') == [3]",
            "anagram_starts('baa', 'aa') == [1]",
            "anagram_starts('ab' * 500, 'ba')[-1] == 998",
        ],
    },
    {
        "entry_point": "longest_unique_substring",
        "tags": ["strings", "sliding-window"],
        "doc": r"""
            Return the length of the longest substring of ``s`` with no repeated
            character.

            >>> longest_unique_substring("abcabcbb")
            3
        """,
        "src": r"""
            def longest_unique_substring(s: str) -> int:
                last: dict[str, int] = {}
                best = start = 0
                for i, ch in enumerate(s):
                    if last.get(ch, -1) >= start:
                        start = last[ch] + 1
                    last[ch] = i
                    best = max(best, i - start + 1)
                return best
        """,
        "visible": ["longest_unique_substring('') == 0", "longest_unique_substring('bbbbb') == 1"],
        "hidden": [
            "longest_unique_substring('pwwkew') == 3",
            "longest_unique_substring('abcdef') == 6",
            "longest_unique_substring('abba') == 2",
            "longest_unique_substring('dvdf') == 3",
            "longest_unique_substring(' ') == 1",
            "longest_unique_substring('tmmzuxt') == 5",
        ],
    },
    {
        "entry_point": "zero_lines",
        "tags": ["lists", "matrix"],
        "doc": r"""
            Return a copy of ``matrix`` in which every row and every column that
            contains a 0 in the original is filled with zeros.

            >>> zero_lines([[1, 2], [0, 3]])
            [[0, 2], [0, 0]]
        """,
        "src": r"""
            def zero_lines(matrix: list[list[int]]) -> list[list[int]]:
                rows = {i for i, row in enumerate(matrix) if 0 in row}
                cols = {j for row in matrix for j, x in enumerate(row) if x == 0}
                return [[0 if i in rows or j in cols else x for j, x in enumerate(row)]
                        for i, row in enumerate(matrix)]
        """,
        "visible": ["zero_lines([]) == []", "zero_lines([[0]]) == [[0]]"],
        "hidden": [
            "zero_lines([[1, 1, 1], [1, 0, 1], [1, 1, 1]]) == [[1, 0, 1], [0, 0, 0], [1, 0, 1]]",
            "zero_lines([[1, 2], [3, 4]]) == [[1, 2], [3, 4]]",
            "zero_lines([[0, 1, 2, 0], [3, 4, 5, 2], [1, 3, 1, 5]]) == "
            "[[0, 0, 0, 0], [0, 4, 5, 0], [0, 3, 1, 0]]",
            "zero_lines([[1, 0]]) == [[0, 0]]",
            "zero_lines([[1], [0], [2]]) == [[0], [0], [0]]",
        ],
    },
    {
        "entry_point": "eval_rpn",
        "tags": ["parsing", "stack"],
        "doc": r"""
            Evaluate a Reverse Polish Notation expression given as tokens: integers
            and the operators ``+``, ``-``, ``*`` and ``/``. Division truncates toward
            zero. The expression is valid and never divides by zero.

            >>> eval_rpn(["2", "1", "+", "3", "*"])
            9
        """,
        "src": r"""
            def eval_rpn(tokens: list[str]) -> int:
                stack: list[int] = []
                for token in tokens:
                    if token in ("+", "-", "*", "/"):
                        b, a = stack.pop(), stack.pop()
                        if token == "+":
                            stack.append(a + b)
                        elif token == "-":
                            stack.append(a - b)
                        elif token == "*":
                            stack.append(a * b)
                        else:
                            q = abs(a) // abs(b)
                            stack.append(q if (a < 0) == (b < 0) else -q)
                    else:
                        stack.append(int(token))
                return stack[0]
        """,
        "visible": ["eval_rpn(['3']) == 3", "eval_rpn(['4', '13', '5', '/', '+']) == 6"],
        "hidden": [
            "eval_rpn(['10', '6', '9', '3', '+', '-11', '*', '/', '*', '17', '+', '5', '+']) == 22",
            "eval_rpn(['7', '-2', '/']) == -3",
            "eval_rpn(['0', '5', '-']) == -5",
            "eval_rpn(['2', '3', '4', '*', '-']) == -10",
            "eval_rpn(['-7', '2', '/']) == -3",
            "eval_rpn(['7', '2', '/']) == 3",
        ],
    },
]
