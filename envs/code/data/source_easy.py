"""Easy code tasks: short string, list and arithmetic functions (one to a few lines).

Plain data consumed by ``build.py``; see its docstring for the entry format.
"""

TASKS = [
    {
        "entry_point": "reverse_words",
        "tags": ["strings"],
        "doc": r"""
            Return the words of ``s`` in reverse order, joined by single spaces.

            Words are separated by runs of whitespace; leading and trailing whitespace
            is ignored.

            >>> reverse_words("the quick  fox")
            'fox quick the'
        """,
        "src": r"""
            def reverse_words(s: str) -> str:
                return " ".join(reversed(s.split()))
        """,
        "visible": ["reverse_words('a b c') == 'c b a'", "reverse_words('hello') == 'hello'"],
        "hidden": [
            "reverse_words('') == ''",
            "reverse_words('   ') == ''",
            "reverse_words('  one two  ') == 'two one'",
            r"reverse_words('x\ty\nz') == 'z y x'",
            "reverse_words('Go is fun') == 'fun is Go'",
            "reverse_words('a  b') == 'b a'",
        ],
    },
    {
        "entry_point": "count_vowels",
        "tags": ["strings"],
        "doc": r"""
            Count the vowels (a, e, i, o, u; either case) in ``s``. ``y`` is not a vowel.

            >>> count_vowels("Programming")
            3
        """,
        "src": r"""
            def count_vowels(s: str) -> int:
                return sum(1 for ch in s.lower() if ch in "aeiou")
        """,
        "visible": ["count_vowels('hello') == 2", "count_vowels('xyz') == 0"],
        "hidden": [
            "count_vowels('') == 0",
            "count_vowels('AEIOU') == 5",
            "count_vowels('aAbBeE') == 4",
            "count_vowels('rhythm') == 0",
            "count_vowels('Queueing') == 5",
            "count_vowels('123 !?') == 0",
        ],
    },
    {
        "entry_point": "is_clean_palindrome",
        "tags": ["strings"],
        "doc": r"""
            Return True if ``s`` reads the same both ways, ignoring case and every
            character that is not a letter or digit.

            >>> is_clean_palindrome("Never odd or even")
            True
        """,
        "src": r"""
            def is_clean_palindrome(s: str) -> bool:
                cleaned = [ch.lower() for ch in s if ch.isalnum()]
                return cleaned == cleaned[::-1]
        """,
        "visible": [
            "is_clean_palindrome('racecar') is True",
            "is_clean_palindrome('hello') is False",
        ],
        "hidden": [
            "is_clean_palindrome('') is True",
            "is_clean_palindrome('A man, a plan, a canal: Panama') is True",
            "is_clean_palindrome('ab') is False",
            "is_clean_palindrome(\"No 'x' in Nixon\") is True",
            "is_clean_palindrome('12321') is True",
            "is_clean_palindrome('123ab321') is False",
            "is_clean_palindrome('!!') is True",
        ],
    },
    {
        "entry_point": "sum_of_squares",
        "tags": ["math"],
        "doc": r"""
            Return 1**2 + 2**2 + ... + n**2, or 0 when ``n`` is zero or negative.

            >>> sum_of_squares(3)
            14
        """,
        "src": r"""
            def sum_of_squares(n: int) -> int:
                return sum(i * i for i in range(1, n + 1))
        """,
        "visible": ["sum_of_squares(1) == 1", "sum_of_squares(4) == 30"],
        "hidden": [
            "sum_of_squares(0) == 0",
            "sum_of_squares(-5) == 0",
            "sum_of_squares(10) == 385",
            "sum_of_squares(2) == 5",
            "sum_of_squares(100) == 338350",
        ],
    },
    {
        "entry_point": "clamp",
        "tags": ["math"],
        "doc": r"""
            Limit ``x`` to the closed range [``lo``, ``hi``] (``lo <= hi``).

            >>> clamp(15, 0, 10)
            10
        """,
        "src": r"""
            def clamp(x: float, lo: float, hi: float) -> float:
                return max(lo, min(x, hi))
        """,
        "visible": ["clamp(5, 0, 10) == 5", "clamp(-3, 0, 10) == 0"],
        "hidden": [
            "clamp(0, 0, 10) == 0",
            "clamp(10, 0, 10) == 10",
            "clamp(11, 0, 10) == 10",
            "clamp(-5, -10, -1) == -5",
            "clamp(-20, -10, -1) == -10",
            "clamp(7, 7, 7) == 7",
            "clamp(2.5, 0, 1) == 1",
        ],
    },
    {
        "entry_point": "second_largest",
        "tags": ["lists"],
        "doc": r"""
            Return the second largest *distinct* value in ``nums``, or None if there
            are fewer than two distinct values.

            >>> second_largest([4, 1, 4, 3])
            3
        """,
        "src": r"""
            def second_largest(nums: list[int]) -> int | None:
                distinct = sorted(set(nums))
                return distinct[-2] if len(distinct) >= 2 else None
        """,
        "visible": ["second_largest([1, 2]) == 1", "second_largest([5, 5]) is None"],
        "hidden": [
            "second_largest([]) is None",
            "second_largest([7]) is None",
            "second_largest([3, 3, 2, 2, 1]) == 2",
            "second_largest([-1, -2, -3]) == -2",
            "second_largest([10, 9, 10, 8]) == 9",
            "second_largest([0, 0, 0, 1]) == 0",
        ],
    },
    {
        "entry_point": "capitalize_words",
        "tags": ["strings"],
        "doc": r"""
            Upper-case the first character of every space-separated word of ``s``.

            All other characters, including the spacing, are left unchanged.

            >>> capitalize_words("hello wORLD")
            'Hello WORLD'
        """,
        "src": r"""
            def capitalize_words(s: str) -> str:
                return " ".join(w[:1].upper() + w[1:] for w in s.split(" "))
        """,
        "visible": ["capitalize_words('a b') == 'A B'", "capitalize_words('python') == 'Python'"],
        "hidden": [
            "capitalize_words('') == ''",
            "capitalize_words('  two  spaces') == '  Two  Spaces'",
            "capitalize_words('123abc x') == '123abc X'",
            "capitalize_words('mIxEd case') == 'MIxEd Case'",
            "capitalize_words('already Upper') == 'Already Upper'",
            "capitalize_words('x') == 'X'",
        ],
    },
    {
        "entry_point": "digit_sum",
        "tags": ["math"],
        "doc": r"""
            Return the sum of the decimal digits of ``n`` (the sign is ignored).

            >>> digit_sum(1234)
            10
        """,
        "src": r"""
            def digit_sum(n: int) -> int:
                return sum(int(d) for d in str(abs(n)))
        """,
        "visible": ["digit_sum(0) == 0", "digit_sum(99) == 18"],
        "hidden": [
            "digit_sum(-405) == 9",
            "digit_sum(7) == 7",
            "digit_sum(1000000) == 1",
            "digit_sum(123456789) == 45",
            "digit_sum(-1) == 1",
        ],
    },
    {
        "entry_point": "unique_in_order",
        "tags": ["lists"],
        "doc": r"""
            Return the items of ``items`` with duplicates removed, keeping the first
            occurrence of each value in its original position.

            >>> unique_in_order([3, 1, 3, 2, 1])
            [3, 1, 2]
        """,
        "src": r"""
            def unique_in_order(items: list) -> list:
                return list(dict.fromkeys(items))
        """,
        "visible": ["unique_in_order([1, 1, 1]) == [1]", "unique_in_order([]) == []"],
        "hidden": [
            "unique_in_order(['b', 'a', 'b']) == ['b', 'a']",
            "unique_in_order([1, 2, 3]) == [1, 2, 3]",
            "unique_in_order([None, None, 0]) == [None, 0]",
            "unique_in_order([2, 2, 1, 1, 2]) == [2, 1]",
            "unique_in_order(list('mississippi')) == ['m', 'i', 's', 'p']",
        ],
    },
    {
        "entry_point": "flatten_once",
        "tags": ["lists"],
        "doc": r"""
            Concatenate a list of lists into one list (only one level is removed).

            >>> flatten_once([[1, 2], [3], []])
            [1, 2, 3]
        """,
        "src": r"""
            def flatten_once(lists: list[list]) -> list:
                return [x for sub in lists for x in sub]
        """,
        "visible": ["flatten_once([]) == []", "flatten_once([[1], [2, 3]]) == [1, 2, 3]"],
        "hidden": [
            "flatten_once([[], []]) == []",
            "flatten_once([[[1]], [2]]) == [[1], 2]",
            "flatten_once([['a'], ['b', 'c']]) == ['a', 'b', 'c']",
            "flatten_once([[1, 2, 3]]) == [1, 2, 3]",
            "flatten_once([[0], [0]]) == [0, 0]",
        ],
    },
    {
        "entry_point": "c_to_f",
        "tags": ["math"],
        "doc": r"""
            Convert a Celsius temperature to Fahrenheit, rounded to one decimal place.

            >>> c_to_f(100)
            212.0
        """,
        "src": r"""
            def c_to_f(c: float) -> float:
                return round(c * 9 / 5 + 32, 1)
        """,
        "visible": ["c_to_f(0) == 32.0", "c_to_f(-40) == -40.0"],
        "hidden": [
            "c_to_f(37) == 98.6",
            "c_to_f(36.6) == 97.9",
            "c_to_f(-273.15) == -459.7",
            "c_to_f(1) == 33.8",
            "c_to_f(25) == 77.0",
            "c_to_f(-17.5) == 0.5",
        ],
    },
    {
        "entry_point": "is_leap_year",
        "tags": ["math", "dates"],
        "doc": r"""
            Return True if ``year`` is a leap year in the Gregorian calendar.

            Years divisible by 4 are leap years, except centuries not divisible by 400.

            >>> is_leap_year(2024)
            True
        """,
        "src": r"""
            def is_leap_year(year: int) -> bool:
                return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        """,
        "visible": ["is_leap_year(1900) is False", "is_leap_year(2000) is True"],
        "hidden": [
            "is_leap_year(2023) is False",
            "is_leap_year(2400) is True",
            "is_leap_year(2100) is False",
            "is_leap_year(4) is True",
            "is_leap_year(1) is False",
            "is_leap_year(1996) is True",
        ],
    },
    {
        "entry_point": "fizzbuzz",
        "tags": ["strings", "math"],
        "doc": r"""
            Return "Fizz" if ``n`` is divisible by 3, "Buzz" if divisible by 5,
            "FizzBuzz" if divisible by both, and otherwise ``n`` as a string.

            >>> fizzbuzz(15)
            'FizzBuzz'
        """,
        "src": r"""
            def fizzbuzz(n: int) -> str:
                word = ("Fizz" if n % 3 == 0 else "") + ("Buzz" if n % 5 == 0 else "")
                return word or str(n)
        """,
        "visible": ["fizzbuzz(3) == 'Fizz'", "fizzbuzz(7) == '7'"],
        "hidden": [
            "fizzbuzz(5) == 'Buzz'",
            "fizzbuzz(30) == 'FizzBuzz'",
            "fizzbuzz(1) == '1'",
            "fizzbuzz(9) == 'Fizz'",
            "fizzbuzz(10) == 'Buzz'",
            "fizzbuzz(0) == 'FizzBuzz'",
            "fizzbuzz(-3) == 'Fizz'",
        ],
    },
    {
        "entry_point": "count_evens",
        "tags": ["lists", "math"],
        "doc": r"""
            Count the even integers in ``nums``.

            >>> count_evens([2, 3, 4])
            2
        """,
        "src": r"""
            def count_evens(nums: list[int]) -> int:
                return sum(1 for x in nums if x % 2 == 0)
        """,
        "visible": ["count_evens([1, 2, 3, 4]) == 2", "count_evens([]) == 0"],
        "hidden": [
            "count_evens([0]) == 1",
            "count_evens([-2, -4, 5]) == 2",
            "count_evens([1, 3, 5]) == 0",
            "count_evens([10, 20, 30, 41]) == 3",
            "count_evens([2, 2, 2, 2, 2]) == 5",
        ],
    },
    {
        "entry_point": "max_step",
        "tags": ["lists"],
        "doc": r"""
            Return the largest absolute difference between two neighbouring elements
            of ``nums``, or 0 if there are fewer than two elements.

            >>> max_step([1, 5, 2])
            4
        """,
        "src": r"""
            def max_step(nums: list[int]) -> int:
                return max((abs(b - a) for a, b in zip(nums, nums[1:])), default=0)
        """,
        "visible": ["max_step([3]) == 0", "max_step([1, 2, 3]) == 1"],
        "hidden": [
            "max_step([]) == 0",
            "max_step([10, -10]) == 20",
            "max_step([5, 5, 5]) == 0",
            "max_step([0, 3, -4, 2]) == 7",
            "max_step([-1, -8]) == 7",
            "max_step([100, 99, 150]) == 51",
        ],
    },
    {
        "entry_point": "chunk",
        "tags": ["lists"],
        "doc": r"""
            Split ``items`` into consecutive chunks of length ``size`` (``size >= 1``);
            the last chunk may be shorter.

            >>> chunk([1, 2, 3, 4, 5], 2)
            [[1, 2], [3, 4], [5]]
        """,
        "src": r"""
            def chunk(items: list, size: int) -> list[list]:
                return [items[i:i + size] for i in range(0, len(items), size)]
        """,
        "visible": ["chunk([], 3) == []", "chunk([1, 2, 3], 3) == [[1, 2, 3]]"],
        "hidden": [
            "chunk([1, 2, 3], 1) == [[1], [2], [3]]",
            "chunk([1, 2, 3], 5) == [[1, 2, 3]]",
            "chunk(list('abcdefg'), 3) == [['a', 'b', 'c'], ['d', 'e', 'f'], ['g']]",
            "chunk([0, 0, 0, 0], 2) == [[0, 0], [0, 0]]",
            "chunk([1], 1) == [[1]]",
        ],
    },
    {
        "entry_point": "interleave",
        "tags": ["lists"],
        "doc": r"""
            Alternate the elements of ``a`` and ``b``, starting with ``a``; once the
            shorter list runs out, the rest of the longer one follows in order.

            >>> interleave([1, 2, 3], ["a"])
            [1, 'a', 2, 3]
        """,
        "src": r"""
            def interleave(a: list, b: list) -> list:
                out = []
                for i in range(max(len(a), len(b))):
                    out.extend(seq[i] for seq in (a, b) if i < len(seq))
                return out
        """,
        "visible": ["interleave([1, 2], [3, 4]) == [1, 3, 2, 4]", "interleave([], [1]) == [1]"],
        "hidden": [
            "interleave([], []) == []",
            "interleave([1], []) == [1]",
            "interleave([1], [2, 3, 4]) == [1, 2, 3, 4]",
            "interleave(['x', 'y', 'z'], ['1', '2']) == ['x', '1', 'y', '2', 'z']",
            "interleave([0, 0], [1, 1]) == [0, 1, 0, 1]",
        ],
    },
    {
        "entry_point": "word_lengths",
        "tags": ["strings", "lists"],
        "doc": r"""
            Return the length of each whitespace-separated word of ``s``, in order.

            >>> word_lengths("I love tea")
            [1, 4, 3]
        """,
        "src": r"""
            def word_lengths(s: str) -> list[int]:
                return [len(w) for w in s.split()]
        """,
        "visible": ["word_lengths('') == []", "word_lengths('hello') == [5]"],
        "hidden": [
            "word_lengths('  a  bb ') == [1, 2]",
            "word_lengths('one two three') == [3, 3, 5]",
            "word_lengths('x-y z') == [3, 1]",
            r"word_lengths('tab\tsep') == [3, 3]",
            "word_lengths('12345 6') == [5, 1]",
        ],
    },
    {
        "entry_point": "initials",
        "tags": ["strings"],
        "doc": r"""
            Return the upper-cased first letter of each whitespace-separated word of
            ``name``, each followed by a full stop.

            >>> initials("ada lovelace")
            'A.L.'
        """,
        "src": r"""
            def initials(name: str) -> str:
                return "".join(w[0].upper() + "." for w in name.split())
        """,
        "visible": ["initials('Grace Brewster Hopper') == 'G.B.H.'", "initials('') == ''"],
        "hidden": [
            "initials('x') == 'X.'",
            "initials('  alan   turing ') == 'A.T.'",
            "initials('j r r tolkien') == 'J.R.R.T.'",
            "initials('mary-jane watson') == 'M.W.'",
            "initials('Linus') == 'L.'",
        ],
    },
    {
        "entry_point": "is_non_decreasing",
        "tags": ["lists"],
        "doc": r"""
            Return True if every element of ``nums`` is >= the one before it.

            >>> is_non_decreasing([1, 2, 2, 5])
            True
        """,
        "src": r"""
            def is_non_decreasing(nums: list[int]) -> bool:
                return all(a <= b for a, b in zip(nums, nums[1:]))
        """,
        "visible": [
            "is_non_decreasing([1, 2, 2, 3]) is True",
            "is_non_decreasing([3, 1]) is False",
        ],
        "hidden": [
            "is_non_decreasing([]) is True",
            "is_non_decreasing([5]) is True",
            "is_non_decreasing([1, 1, 1]) is True",
            "is_non_decreasing([1, 2, 3, 2]) is False",
            "is_non_decreasing([-3, -2, -2, 0]) is True",
            "is_non_decreasing([2, 1, 2]) is False",
        ],
    },
    {
        "entry_point": "rotate_left",
        "tags": ["lists"],
        "doc": r"""
            Return a new list with ``items`` rotated ``k`` places to the left.

            ``k`` may exceed the length; a negative ``k`` rotates to the right.

            >>> rotate_left([1, 2, 3, 4, 5], 2)
            [3, 4, 5, 1, 2]
        """,
        "src": r"""
            def rotate_left(items: list, k: int) -> list:
                if not items:
                    return []
                k %= len(items)
                return items[k:] + items[:k]
        """,
        "visible": [
            "rotate_left([1, 2, 3], 0) == [1, 2, 3]",
            "rotate_left([1, 2, 3], 1) == [2, 3, 1]",
        ],
        "hidden": [
            "rotate_left([], 3) == []",
            "rotate_left([1, 2, 3], 3) == [1, 2, 3]",
            "rotate_left([1, 2, 3], 4) == [2, 3, 1]",
            "rotate_left([1, 2, 3], -1) == [3, 1, 2]",
            "rotate_left(['a'], 10) == ['a']",
            "rotate_left([1, 2, 3, 4], 6) == [3, 4, 1, 2]",
        ],
    },
    {
        "entry_point": "count_overlapping",
        "tags": ["strings"],
        "doc": r"""
            Count the occurrences of ``sub`` in ``text``, overlapping ones included.

            An empty ``sub`` has no occurrences.

            >>> count_overlapping("aaaa", "aa")
            3
        """,
        "src": r"""
            def count_overlapping(text: str, sub: str) -> int:
                if not sub:
                    return 0
                return sum(text.startswith(sub, i) for i in range(len(text)))
        """,
        "visible": [
            "count_overlapping('banana', 'ana') == 2",
            "count_overlapping('abc', 'd') == 0",
        ],
        "hidden": [
            "count_overlapping('', 'a') == 0",
            "count_overlapping('abc', '') == 0",
            "count_overlapping('aaaaa', 'a') == 5",
            "count_overlapping('abababa', 'aba') == 3",
            "count_overlapping('ab', 'abc') == 0",
            "count_overlapping('xxxx', 'xxxx') == 1",
        ],
    },
    {
        "entry_point": "mask",
        "tags": ["strings"],
        "doc": r"""
            Replace every character of ``s`` except the last ``keep`` with ``#``.

            Strings no longer than ``keep`` are returned unchanged; ``keep <= 0``
            masks everything.

            >>> mask("4111222233334444")
            '############4444'
        """,
        "src": r"""
            def mask(s: str, keep: int = 4) -> str:
                if keep <= 0:
                    return "#" * len(s)
                return "#" * max(0, len(s) - keep) + s[-keep:]
        """,
        "visible": ["mask('1234') == '1234'", "mask('abcdef') == '##cdef'"],
        "hidden": [
            "mask('') == ''",
            "mask('12') == '12'",
            "mask('abcdef', 2) == '####ef'",
            "mask('abcdef', 0) == '######'",
            "mask('secret', 10) == 'secret'",
            "mask('12345') == '#2345'",
        ],
    },
    {
        "entry_point": "pairwise_sums",
        "tags": ["lists"],
        "doc": r"""
            Return the sums of each pair of neighbouring elements of ``nums``.

            >>> pairwise_sums([1, 2, 3])
            [3, 5]
        """,
        "src": r"""
            def pairwise_sums(nums: list[int]) -> list[int]:
                return [a + b for a, b in zip(nums, nums[1:])]
        """,
        "visible": ["pairwise_sums([]) == []", "pairwise_sums([5]) == []"],
        "hidden": [
            "pairwise_sums([1, 1]) == [2]",
            "pairwise_sums([1, -1, 1, -1]) == [0, 0, 0]",
            "pairwise_sums([10, 20, 30, 40]) == [30, 50, 70]",
            "pairwise_sums([0, 0, 0]) == [0, 0]",
            "pairwise_sums([-5, 2]) == [-3]",
        ],
    },
    {
        "entry_point": "product",
        "tags": ["lists", "math"],
        "doc": r"""
            Return the product of the numbers in ``nums`` (1 for an empty list).

            >>> product([2, 3, 4])
            24
        """,
        "src": r"""
            def product(nums: list[int]) -> int:
                result = 1
                for x in nums:
                    result *= x
                return result
        """,
        "visible": ["product([]) == 1", "product([0, 5]) == 0"],
        "hidden": [
            "product([-2, 3]) == -6",
            "product([-1, -1, -1]) == -1",
            "product([7]) == 7",
            "product([10, 10, 10, 10]) == 10000",
            "product([1, 2, 3, 4, 5, 6]) == 720",
        ],
    },
    {
        "entry_point": "triangular",
        "tags": ["math"],
        "doc": r"""
            Return the ``n``-th triangular number 1 + 2 + ... + n (0 for ``n == 0``).

            >>> triangular(4)
            10
        """,
        "src": r"""
            def triangular(n: int) -> int:
                return n * (n + 1) // 2
        """,
        "visible": ["triangular(0) == 0", "triangular(1) == 1"],
        "hidden": [
            "triangular(2) == 3",
            "triangular(3) == 6",
            "triangular(10) == 55",
            "triangular(100) == 5050",
            "triangular(1000) == 500500",
        ],
    },
    {
        "entry_point": "gcd_all",
        "tags": ["math"],
        "doc": r"""
            Return the greatest common divisor of all numbers in ``nums``.

            The result is never negative; an empty list (or all zeros) gives 0.

            >>> gcd_all([12, 18, 24])
            6
        """,
        "src": r"""
            def gcd_all(nums: list[int]) -> int:
                import math

                result = 0
                for x in nums:
                    result = math.gcd(result, x)
                return result
        """,
        "visible": ["gcd_all([7]) == 7", "gcd_all([]) == 0"],
        "hidden": [
            "gcd_all([0, 0]) == 0",
            "gcd_all([0, 5]) == 5",
            "gcd_all([-4, 6]) == 2",
            "gcd_all([17, 34, 51]) == 17",
            "gcd_all([8, 9]) == 1",
            "gcd_all([100, 75, 50]) == 25",
        ],
    },
    {
        "entry_point": "lcm",
        "tags": ["math"],
        "doc": r"""
            Return the least common multiple of ``a`` and ``b`` as a non-negative
            number; it is 0 if either argument is 0.

            >>> lcm(4, 6)
            12
        """,
        "src": r"""
            def lcm(a: int, b: int) -> int:
                import math

                if a == 0 or b == 0:
                    return 0
                return abs(a * b) // math.gcd(a, b)
        """,
        "visible": ["lcm(0, 5) == 0", "lcm(1, 1) == 1"],
        "hidden": [
            "lcm(7, 3) == 21",
            "lcm(-4, 6) == 12",
            "lcm(12, 18) == 36",
            "lcm(5, 5) == 5",
            "lcm(21, 6) == 42",
            "lcm(5, 0) == 0",
        ],
    },
    {
        "entry_point": "hamming",
        "tags": ["strings"],
        "doc": r"""
            Count the positions at which ``a`` and ``b`` differ.

            If the strings have different lengths, each extra character of the
            longer one also counts as a difference.

            >>> hamming("karolin", "kathrin")
            3
        """,
        "src": r"""
            def hamming(a: str, b: str) -> int:
                return sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b))
        """,
        "visible": ["hamming('abc', 'abc') == 0", "hamming('abc', 'abd') == 1"],
        "hidden": [
            "hamming('', '') == 0",
            "hamming('', 'abc') == 3",
            "hamming('abcd', 'ab') == 2",
            "hamming('1011101', '1001001') == 2",
            "hamming('aaaa', 'bbbb') == 4",
            "hamming('a', 'A') == 1",
        ],
    },
    {
        "entry_point": "popcount",
        "tags": ["bits", "math"],
        "doc": r"""
            Return the number of 1 bits in the binary form of ``n`` (``n >= 0``).

            >>> popcount(7)
            3
        """,
        "src": r"""
            def popcount(n: int) -> int:
                return bin(n).count("1")
        """,
        "visible": ["popcount(0) == 0", "popcount(8) == 1"],
        "hidden": [
            "popcount(1) == 1",
            "popcount(255) == 8",
            "popcount(1023) == 10",
            "popcount(2 ** 40) == 1",
            "popcount(0b101010) == 3",
            "popcount(12345) == 6",
        ],
    },
    {
        "entry_point": "alternate_case",
        "tags": ["strings"],
        "doc": r"""
            Make the letters of ``s`` alternate upper, lower, upper, ... starting with
            upper case. Non-letters are copied unchanged and do not advance the pattern.

            >>> alternate_case("hello world")
            'HeLlO wOrLd'
        """,
        "src": r"""
            def alternate_case(s: str) -> str:
                out, upper = [], True
                for ch in s:
                    if ch.isalpha():
                        out.append(ch.upper() if upper else ch.lower())
                        upper = not upper
                    else:
                        out.append(ch)
                return "".join(out)
        """,
        "visible": ["alternate_case('abc') == 'AbC'", "alternate_case('') == ''"],
        "hidden": [
            "alternate_case('a b c') == 'A b C'",
            "alternate_case('12ab') == '12Ab'",
            "alternate_case('ABCD') == 'AbCd'",
            "alternate_case('x!y?z') == 'X!y?Z'",
            "alternate_case('ZZZ') == 'ZzZ'",
            "alternate_case('   ') == '   '",
        ],
    },
    {
        "entry_point": "strip_vowels",
        "tags": ["strings"],
        "doc": r"""
            Remove every vowel (a, e, i, o, u in either case) from ``s``.

            >>> strip_vowels("education")
            'dctn'
        """,
        "src": r"""
            def strip_vowels(s: str) -> str:
                return "".join(ch for ch in s if ch.lower() not in "aeiou")
        """,
        "visible": ["strip_vowels('hello') == 'hll'", "strip_vowels('AEIOU') == ''"],
        "hidden": [
            "strip_vowels('') == ''",
            "strip_vowels('rhythm') == 'rhythm'",
            "strip_vowels('Programming Language') == 'Prgrmmng Lngg'",
            "strip_vowels('a1e2i3') == '123'",
            "strip_vowels('Yay') == 'Yy'",
        ],
    },
    {
        "entry_point": "longest_word",
        "tags": ["strings"],
        "doc": r"""
            Return the longest whitespace-separated word of ``s``; the first one wins
            ties. Return an empty string if there are no words.

            >>> longest_word("a quick brown fox")
            'quick'
        """,
        "src": r"""
            def longest_word(s: str) -> str:
                return max(s.split(), key=len, default="")
        """,
        "visible": ["longest_word('') == ''", "longest_word('hi there') == 'there'"],
        "hidden": [
            "longest_word('one two six') == 'one'",
            "longest_word('   ') == ''",
            "longest_word('abc abcd abcde abcd') == 'abcde'",
            "longest_word('tie tie2 tie3') == 'tie2'",
            "longest_word('single') == 'single'",
        ],
    },
    {
        "entry_point": "mean",
        "tags": ["math", "lists"],
        "doc": r"""
            Return the arithmetic mean of ``nums`` rounded to two decimal places,
            or 0.0 for an empty list.

            >>> mean([1, 2, 3, 4])
            2.5
        """,
        "src": r"""
            def mean(nums: list[float]) -> float:
                if not nums:
                    return 0.0
                return round(sum(nums) / len(nums), 2)
        """,
        "visible": ["mean([]) == 0.0", "mean([5]) == 5.0"],
        "hidden": [
            "mean([1, 2]) == 1.5",
            "mean([1, 1, 2]) == 1.33",
            "mean([-1, 1]) == 0.0",
            "mean([0.1, 0.2]) == 0.15",
            "mean([10, 20, 25]) == 18.33",
            "mean([2, 2, 2, 2]) == 2.0",
        ],
    },
    {
        "entry_point": "running_total",
        "tags": ["lists"],
        "doc": r"""
            Return the running (prefix) sums of ``nums``.

            >>> running_total([1, 2, 3])
            [1, 3, 6]
        """,
        "src": r"""
            def running_total(nums: list[int]) -> list[int]:
                out, total = [], 0
                for x in nums:
                    total += x
                    out.append(total)
                return out
        """,
        "visible": ["running_total([]) == []", "running_total([5]) == [5]"],
        "hidden": [
            "running_total([1, -1, 1, -1]) == [1, 0, 1, 0]",
            "running_total([0, 0]) == [0, 0]",
            "running_total([10, 20, 30, 40]) == [10, 30, 60, 100]",
            "running_total([-3, -3]) == [-3, -6]",
            "running_total([2, 0, 2]) == [2, 2, 4]",
        ],
    },
    {
        "entry_point": "argmax",
        "tags": ["lists"],
        "doc": r"""
            Return the index of the first occurrence of the largest value in ``nums``,
            or -1 for an empty list.

            >>> argmax([1, 3, 2])
            1
        """,
        "src": r"""
            def argmax(nums: list[float]) -> int:
                if not nums:
                    return -1
                return nums.index(max(nums))
        """,
        "visible": ["argmax([]) == -1", "argmax([5]) == 0"],
        "hidden": [
            "argmax([2, 7, 7, 1]) == 1",
            "argmax([-5, -1, -3]) == 1",
            "argmax([0, 0, 0]) == 0",
            "argmax([1, 2, 3, 4, 5]) == 4",
            "argmax([9, 1, 9]) == 0",
        ],
    },
    {
        "entry_point": "has_duplicates",
        "tags": ["lists"],
        "doc": r"""
            Return True if any two elements of ``items`` are equal (items are hashable).

            >>> has_duplicates([1, 2, 1])
            True
        """,
        "src": r"""
            def has_duplicates(items: list) -> bool:
                return len(set(items)) != len(items)
        """,
        "visible": ["has_duplicates([1, 2, 3]) is False", "has_duplicates([4, 4]) is True"],
        "hidden": [
            "has_duplicates([]) is False",
            "has_duplicates([0]) is False",
            "has_duplicates(['a', 'A']) is False",
            "has_duplicates([None, None]) is True",
            "has_duplicates([1, 1.0]) is True",
            "has_duplicates([3, 1, 4, 1, 5]) is True",
            "has_duplicates(list(range(100))) is False",
        ],
    },
    {
        "entry_point": "zip_fill",
        "tags": ["dicts"],
        "doc": r"""
            Build a dict mapping each key to the value at the same position.

            Keys without a matching value map to None; surplus values are ignored.
            A repeated key keeps its last value.

            >>> zip_fill(["a", "b", "c"], [1, 2])
            {'a': 1, 'b': 2, 'c': None}
        """,
        "src": r"""
            def zip_fill(keys: list, values: list) -> dict:
                return {k: values[i] if i < len(values) else None for i, k in enumerate(keys)}
        """,
        "visible": ["zip_fill([], []) == {}", "zip_fill(['x'], [1, 2]) == {'x': 1}"],
        "hidden": [
            "zip_fill(['a', 'b'], []) == {'a': None, 'b': None}",
            "zip_fill([1, 2, 3], ['x', 'y', 'z']) == {1: 'x', 2: 'y', 3: 'z'}",
            "zip_fill(['a', 'a'], [1, 2]) == {'a': 2}",
            "zip_fill(['k'], [None]) == {'k': None}",
            "zip_fill(['p', 'q'], [0]) == {'p': 0, 'q': None}",
        ],
    },
    {
        "entry_point": "invert_dict",
        "tags": ["dicts"],
        "doc": r"""
            Swap the keys and values of ``d``. If several keys share a value, the key
            that comes last in ``d`` wins.

            >>> invert_dict({"a": 1, "b": 2})
            {1: 'a', 2: 'b'}
        """,
        "src": r"""
            def invert_dict(d: dict) -> dict:
                return {v: k for k, v in d.items()}
        """,
        "visible": ["invert_dict({}) == {}", "invert_dict({1: 'x'}) == {'x': 1}"],
        "hidden": [
            "invert_dict({'a': 1, 'b': 1}) == {1: 'b'}",
            "invert_dict({'x': 'y', 'y': 'x'}) == {'y': 'x', 'x': 'y'}",
            "invert_dict({'a': (1, 2)}) == {(1, 2): 'a'}",
            "invert_dict({'a': 0, 'b': 1, 'c': 0}) == {0: 'c', 1: 'b'}",
            "invert_dict({'k': None}) == {None: 'k'}",
        ],
    },
    {
        "entry_point": "letter_counts",
        "tags": ["strings", "dicts"],
        "doc": r"""
            Count the ASCII letters of ``s`` case-insensitively, as a dict from
            lower-case letter to count. Other characters are ignored.

            >>> letter_counts("Aab!")
            {'a': 2, 'b': 1}
        """,
        "src": r"""
            def letter_counts(s: str) -> dict[str, int]:
                counts: dict[str, int] = {}
                for ch in s.lower():
                    if "a" <= ch <= "z":
                        counts[ch] = counts.get(ch, 0) + 1
                return counts
        """,
        "visible": ["letter_counts('') == {}", "letter_counts('zz') == {'z': 2}"],
        "hidden": [
            "letter_counts('Hello, World') == "
            "{'h': 1, 'e': 1, 'l': 3, 'o': 2, 'w': 1, 'r': 1, 'd': 1}",
            "letter_counts('123') == {}",
            "letter_counts('AaAa') == {'a': 4}",
            "letter_counts('abc cba') == {'a': 2, 'b': 2, 'c': 2}",
            "letter_counts('x-y_z') == {'x': 1, 'y': 1, 'z': 1}",
        ],
    },
    {
        "entry_point": "digital_root",
        "tags": ["math"],
        "doc": r"""
            Repeatedly sum the decimal digits of ``n`` (``n >= 0``) until a single
            digit remains, and return it.

            >>> digital_root(942)
            6
        """,
        "src": r"""
            def digital_root(n: int) -> int:
                return 0 if n == 0 else 1 + (n - 1) % 9
        """,
        "visible": ["digital_root(16) == 7", "digital_root(0) == 0"],
        "hidden": [
            "digital_root(9) == 9",
            "digital_root(132189) == 6",
            "digital_root(493193) == 2",
            "digital_root(10) == 1",
            "digital_root(999999999999) == 9",
            "digital_root(5) == 5",
        ],
    },
    {
        "entry_point": "is_power_of_two",
        "tags": ["bits", "math"],
        "doc": r"""
            Return True if the integer ``n`` is a positive power of two.

            >>> is_power_of_two(64)
            True
        """,
        "src": r"""
            def is_power_of_two(n: int) -> bool:
                return n > 0 and n & (n - 1) == 0
        """,
        "visible": ["is_power_of_two(1) is True", "is_power_of_two(6) is False"],
        "hidden": [
            "is_power_of_two(0) is False",
            "is_power_of_two(-8) is False",
            "is_power_of_two(1024) is True",
            "is_power_of_two(2 ** 50) is True",
            "is_power_of_two(2 ** 50 + 1) is False",
            "is_power_of_two(3) is False",
            "is_power_of_two(2) is True",
        ],
    },
    {
        "entry_point": "to_base",
        "tags": ["math", "strings"],
        "doc": r"""
            Write the integer ``n`` in base ``base`` (2 to 16), using the digits
            0-9 and lower-case a-f and a leading ``-`` for negative numbers.

            >>> to_base(255, 16)
            'ff'
        """,
        "src": r"""
            def to_base(n: int, base: int) -> str:
                digits = "0123456789abcdef"
                if n == 0:
                    return "0"
                sign, n, out = "-" if n < 0 else "", abs(n), []
                while n:
                    n, r = divmod(n, base)
                    out.append(digits[r])
                return sign + "".join(reversed(out))
        """,
        "visible": ["to_base(5, 2) == '101'", "to_base(0, 7) == '0'"],
        "hidden": [
            "to_base(255, 2) == '11111111'",
            "to_base(-10, 2) == '-1010'",
            "to_base(100, 10) == '100'",
            "to_base(35, 16) == '23'",
            "to_base(4095, 16) == 'fff'",
            "to_base(8, 8) == '10'",
            "to_base(1, 3) == '1'",
            "to_base(80, 9) == '88'",
        ],
    },
    {
        "entry_point": "count_words",
        "tags": ["strings"],
        "doc": r"""
            Count the whitespace-separated words in ``s``.

            >>> count_words("to be or not")
            4
        """,
        "src": r"""
            def count_words(s: str) -> int:
                return len(s.split())
        """,
        "visible": ["count_words('hello world') == 2", "count_words('') == 0"],
        "hidden": [
            "count_words('   ') == 0",
            "count_words('one') == 1",
            "count_words('  a b  c ') == 3",
            r"count_words('a\tb\nc') == 3",
            "count_words('well-known fact') == 2",
            "count_words('1 2 3 4 5') == 5",
        ],
    },
    {
        "entry_point": "truncate",
        "tags": ["strings"],
        "doc": r"""
            Shorten ``s`` to at most ``n`` characters (``n >= 3``).

            A string that is too long keeps its first ``n - 3`` characters followed
            by ``...``; shorter strings are returned unchanged.

            >>> truncate("Hello, world", 8)
            'Hello...'
        """,
        "src": r"""
            def truncate(s: str, n: int) -> str:
                return s if len(s) <= n else s[:n - 3] + "..."
        """,
        "visible": ["truncate('short', 10) == 'short'", "truncate('abcdef', 5) == 'ab...'"],
        "hidden": [
            "truncate('', 3) == ''",
            "truncate('abc', 3) == 'abc'",
            "truncate('abcd', 3) == '...'",
            "truncate('abcdefghij', 10) == 'abcdefghij'",
            "truncate('abcdefghijk', 10) == 'abcdefg...'",
            "truncate('hello world', 4) == 'h...'",
        ],
    },
    {
        "entry_point": "common_sorted",
        "tags": ["lists"],
        "doc": r"""
            Return the values present in both ``a`` and ``b``, without duplicates,
            in ascending order.

            >>> common_sorted([3, 1, 2, 3], [3, 2, 5])
            [2, 3]
        """,
        "src": r"""
            def common_sorted(a: list, b: list) -> list:
                return sorted(set(a) & set(b))
        """,
        "visible": [
            "common_sorted([1, 2, 3], [2, 3, 4]) == [2, 3]",
            "common_sorted([], [1]) == []",
        ],
        "hidden": [
            "common_sorted([1, 1, 2], [1, 1]) == [1]",
            "common_sorted([5, 4, 3], [3, 4, 5]) == [3, 4, 5]",
            "common_sorted([1, 2], [3, 4]) == []",
            "common_sorted(['b', 'a'], ['a', 'c', 'b']) == ['a', 'b']",
            "common_sorted([-1, 0, 1], [1, -1]) == [-1, 1]",
        ],
    },
    {
        "entry_point": "without",
        "tags": ["lists"],
        "doc": r"""
            Return the items of ``a`` that do not appear in ``b``, keeping their order
            and any repeats.

            >>> without([1, 2, 3, 2], [2])
            [1, 3]
        """,
        "src": r"""
            def without(a: list, b: list) -> list:
                banned = set(b)
                return [x for x in a if x not in banned]
        """,
        "visible": ["without([], [1]) == []", "without([1, 2], []) == [1, 2]"],
        "hidden": [
            "without([1, 1, 1], [1]) == []",
            "without(['a', 'b', 'a'], ['c']) == ['a', 'b', 'a']",
            "without([3, 2, 1], [1, 3]) == [2]",
            "without([None, 0], [None]) == [0]",
            "without([5, 6, 5, 7], [6, 7]) == [5, 5]",
        ],
    },
    {
        "entry_point": "is_anagram",
        "tags": ["strings"],
        "doc": r"""
            Return True if ``a`` and ``b`` contain the same letters with the same
            multiplicities, ignoring case and spaces.

            >>> is_anagram("Listen", "Silent")
            True
        """,
        "src": r"""
            def is_anagram(a: str, b: str) -> bool:
                def key(s: str) -> list[str]:
                    return sorted(s.replace(" ", "").lower())

                return key(a) == key(b)
        """,
        "visible": ["is_anagram('abc', 'bca') is True", "is_anagram('abc', 'abd') is False"],
        "hidden": [
            "is_anagram('Dormitory', 'dirty room') is True",
            "is_anagram('', '') is True",
            "is_anagram('a', '') is False",
            "is_anagram('aab', 'abb') is False",
            "is_anagram('Astronomer', 'Moon starer') is True",
            "is_anagram('abc', 'cba ') is True",
        ],
    },
    {
        "entry_point": "first_unique_char",
        "tags": ["strings", "dicts"],
        "doc": r"""
            Return the first character of ``s`` that occurs exactly once
            (case-sensitive), or an empty string if there is none.

            >>> first_unique_char("swiss")
            'w'
        """,
        "src": r"""
            def first_unique_char(s: str) -> str:
                from collections import Counter

                counts = Counter(s)
                return next((ch for ch in s if counts[ch] == 1), "")
        """,
        "visible": ["first_unique_char('aabb') == ''", "first_unique_char('x') == 'x'"],
        "hidden": [
            "first_unique_char('') == ''",
            "first_unique_char('abcabcd') == 'd'",
            "first_unique_char('aAbB') == 'a'",
            "first_unique_char('112233') == ''",
            "first_unique_char('stress') == 't'",
            "first_unique_char('zyz') == 'y'",
        ],
    },
    {
        "entry_point": "manhattan",
        "tags": ["math"],
        "doc": r"""
            Return the Manhattan distance between points ``p`` and ``q`` (tuples of
            equal length): the sum of the absolute coordinate differences.

            >>> manhattan((0, 0), (3, 4))
            7
        """,
        "src": r"""
            def manhattan(p: tuple, q: tuple) -> int:
                return sum(abs(a - b) for a, b in zip(p, q))
        """,
        "visible": ["manhattan((1, 1), (1, 1)) == 0", "manhattan((5,), (2,)) == 3"],
        "hidden": [
            "manhattan((-1, -1), (1, 1)) == 4",
            "manhattan((1, 2, 3), (4, 5, 6)) == 9",
            "manhattan((0, 0), (-3, 0)) == 3",
            "manhattan((), ()) == 0",
            "manhattan((10, -10), (-10, 10)) == 40",
        ],
    },
    {
        "entry_point": "squares_of_evens",
        "tags": ["lists", "math"],
        "doc": r"""
            Return the squares of the even numbers of ``nums``, in their original order.

            >>> squares_of_evens([1, 2, 3, 4])
            [4, 16]
        """,
        "src": r"""
            def squares_of_evens(nums: list[int]) -> list[int]:
                return [x * x for x in nums if x % 2 == 0]
        """,
        "visible": ["squares_of_evens([]) == []", "squares_of_evens([1, 3]) == []"],
        "hidden": [
            "squares_of_evens([0]) == [0]",
            "squares_of_evens([-2, 5, 6]) == [4, 36]",
            "squares_of_evens([10, 10]) == [100, 100]",
            "squares_of_evens([7, 8, 9, 10]) == [64, 100]",
            "squares_of_evens([2]) == [4]",
        ],
    },
    {
        "entry_point": "min_max",
        "tags": ["lists"],
        "doc": r"""
            Return ``(smallest, largest)`` of ``nums``, or None for an empty list.

            >>> min_max([3, 1, 2])
            (1, 3)
        """,
        "src": r"""
            def min_max(nums: list[float]) -> tuple | None:
                if not nums:
                    return None
                return (min(nums), max(nums))
        """,
        "visible": ["min_max([]) is None", "min_max([5]) == (5, 5)"],
        "hidden": [
            "min_max([-1, -5, 0]) == (-5, 0)",
            "min_max([2, 2, 2]) == (2, 2)",
            "min_max([1.5, -0.5]) == (-0.5, 1.5)",
            "min_max([100, -100, 50]) == (-100, 100)",
            "min_max([0, 1]) == (0, 1)",
        ],
    },
    {
        "entry_point": "stretch",
        "tags": ["strings"],
        "doc": r"""
            Repeat every character of ``s`` ``k`` times; ``k <= 0`` gives "".

            >>> stretch("abc", 2)
            'aabbcc'
        """,
        "src": r"""
            def stretch(s: str, k: int) -> str:
                return "".join(ch * k for ch in s)
        """,
        "visible": ["stretch('', 3) == ''", "stretch('abc', 1) == 'abc'"],
        "hidden": [
            "stretch('abc', 0) == ''",
            "stretch('ab', -1) == ''",
            "stretch('x', 5) == 'xxxxx'",
            "stretch('a b', 2) == 'aa  bb'",
            "stretch('12', 3) == '111222'",
        ],
    },
    {
        "entry_point": "count_upper",
        "tags": ["strings"],
        "doc": r"""
            Count the upper-case letters in ``s``.

            >>> count_upper("Hello World")
            2
        """,
        "src": r"""
            def count_upper(s: str) -> int:
                return sum(1 for ch in s if ch.isupper())
        """,
        "visible": ["count_upper('') == 0", "count_upper('ABC') == 3"],
        "hidden": [
            "count_upper('abc') == 0",
            "count_upper('A1B2c3') == 2",
            "count_upper('NASA rocks') == 4",
            "count_upper('!?') == 0",
            "count_upper('aBcDeF') == 3",
        ],
    },
    {
        "entry_point": "last_digit_of_power",
        "tags": ["math"],
        "doc": r"""
            Return the last decimal digit of ``a ** b`` for ``a, b >= 0``
            (with ``0 ** 0 == 1``). ``b`` may be very large.

            >>> last_digit_of_power(2, 10)
            4
        """,
        "src": r"""
            def last_digit_of_power(a: int, b: int) -> int:
                return pow(a, b, 10)
        """,
        "visible": ["last_digit_of_power(7, 0) == 1", "last_digit_of_power(3, 4) == 1"],
        "hidden": [
            "last_digit_of_power(0, 0) == 1",
            "last_digit_of_power(0, 5) == 0",
            "last_digit_of_power(9, 7) == 9",
            "last_digit_of_power(12345, 10 ** 9) == 5",
            "last_digit_of_power(2, 3) == 8",
            "last_digit_of_power(4, 2) == 6",
            "last_digit_of_power(7, 10 ** 18) == 1",
        ],
    },
    {
        "entry_point": "count_sign",
        "tags": ["lists"],
        "doc": r"""
            Return ``(positives, negatives)``: how many numbers in ``nums`` are above
            zero and how many below. Zeros are not counted.

            >>> count_sign([1, -2, 3, 0])
            (2, 1)
        """,
        "src": r"""
            def count_sign(nums: list[float]) -> tuple[int, int]:
                return (sum(1 for x in nums if x > 0), sum(1 for x in nums if x < 0))
        """,
        "visible": ["count_sign([]) == (0, 0)", "count_sign([5]) == (1, 0)"],
        "hidden": [
            "count_sign([0, 0]) == (0, 0)",
            "count_sign([-1, -1]) == (0, 2)",
            "count_sign([0, 1, -1, 2, -2, 3]) == (3, 2)",
            "count_sign([0.5, -0.5]) == (1, 1)",
            "count_sign([-7]) == (0, 1)",
        ],
    },
    {
        "entry_point": "drop_every_nth",
        "tags": ["lists"],
        "doc": r"""
            Remove every ``n``-th item of ``items`` (positions n, 2n, 3n, ... counting
            from 1) and return the rest in order.

            >>> drop_every_nth([1, 2, 3, 4, 5, 6, 7], 3)
            [1, 2, 4, 5, 7]
        """,
        "src": r"""
            def drop_every_nth(items: list, n: int) -> list:
                return [x for i, x in enumerate(items, 1) if i % n]
        """,
        "visible": [
            "drop_every_nth([1, 2, 3], 1) == []",
            "drop_every_nth([1, 2, 3], 5) == [1, 2, 3]",
        ],
        "hidden": [
            "drop_every_nth([], 2) == []",
            "drop_every_nth([1, 2, 3, 4], 2) == [1, 3]",
            "drop_every_nth(list('abcdef'), 3) == ['a', 'b', 'd', 'e']",
            "drop_every_nth([9, 9, 9], 3) == [9, 9]",
            "drop_every_nth([1, 2, 3, 4, 5, 6], 6) == [1, 2, 3, 4, 5]",
        ],
    },
    {
        "entry_point": "collapse_spaces",
        "tags": ["strings"],
        "doc": r"""
            Strip ``s`` and replace every run of whitespace inside it by one space.

            >>> collapse_spaces("  a   b ")
            'a b'
        """,
        "src": r"""
            def collapse_spaces(s: str) -> str:
                return " ".join(s.split())
        """,
        "visible": ["collapse_spaces('') == ''", "collapse_spaces('abc') == 'abc'"],
        "hidden": [
            "collapse_spaces('   ') == ''",
            r"collapse_spaces('a\t\tb\nc') == 'a b c'",
            "collapse_spaces('x  y  z') == 'x y z'",
            "collapse_spaces(' lead') == 'lead'",
            "collapse_spaces('trail   ') == 'trail'",
        ],
    },
    {
        "entry_point": "is_subsequence",
        "tags": ["strings"],
        "doc": r"""
            Return True if the characters of ``sub`` appear in ``s`` in the same order
            (not necessarily next to each other).

            >>> is_subsequence("ace", "abcde")
            True
        """,
        "src": r"""
            def is_subsequence(sub: str, s: str) -> bool:
                it = iter(s)
                return all(ch in it for ch in sub)
        """,
        "visible": ["is_subsequence('aec', 'abcde') is False", "is_subsequence('', 'abc') is True"],
        "hidden": [
            "is_subsequence('abc', '') is False",
            "is_subsequence('', '') is True",
            "is_subsequence('abc', 'abc') is True",
            "is_subsequence('aaa', 'aa') is False",
            "is_subsequence('aa', 'aba') is True",
            "is_subsequence('ba', 'ab') is False",
            "is_subsequence('xyz', 'xxyyzz') is True",
        ],
    },
    {
        "entry_point": "percentage",
        "tags": ["math"],
        "doc": r"""
            Return ``part`` as a percentage of ``whole`` rounded to one decimal place,
            or 0.0 when ``whole`` is 0.

            >>> percentage(1, 4)
            25.0
        """,
        "src": r"""
            def percentage(part: float, whole: float) -> float:
                if whole == 0:
                    return 0.0
                return round(100 * part / whole, 1)
        """,
        "visible": ["percentage(5, 0) == 0.0", "percentage(10, 10) == 100.0"],
        "hidden": [
            "percentage(1, 3) == 33.3",
            "percentage(2, 3) == 66.7",
            "percentage(0, 10) == 0.0",
            "percentage(3, 2) == 150.0",
            "percentage(1, 8) == 12.5",
        ],
    },
    {
        "entry_point": "get_or_default",
        "tags": ["lists"],
        "doc": r"""
            Return ``items[index]``, using Python's meaning of negative indices, or
            ``default`` when the index is out of range.

            >>> get_or_default([1, 2, 3], 5, -1)
            -1
        """,
        "src": r"""
            def get_or_default(items: list, index: int, default: object) -> object:
                return items[index] if -len(items) <= index < len(items) else default
        """,
        "visible": ["get_or_default([1, 2, 3], 1, 0) == 2", "get_or_default([], 0, 'x') == 'x'"],
        "hidden": [
            "get_or_default([1, 2, 3], -1, 0) == 3",
            "get_or_default([1, 2, 3], -3, 0) == 1",
            "get_or_default([1, 2, 3], -4, 'd') == 'd'",
            "get_or_default([1, 2, 3], 3, 'd') == 'd'",
            "get_or_default(['a'], 0, 'z') == 'a'",
        ],
    },
    {
        "entry_point": "reverse_each_word",
        "tags": ["strings"],
        "doc": r"""
            Reverse the characters of each space-separated word of ``s``, keeping the
            words in place and the spacing unchanged.

            >>> reverse_each_word("hello world")
            'olleh dlrow'
        """,
        "src": r"""
            def reverse_each_word(s: str) -> str:
                return " ".join(w[::-1] for w in s.split(" "))
        """,
        "visible": ["reverse_each_word('abc') == 'cba'", "reverse_each_word('') == ''"],
        "hidden": [
            "reverse_each_word('a b') == 'a b'",
            "reverse_each_word('  ab  cd ') == '  ba  dc '",
            "reverse_each_word('racecar level') == 'racecar level'",
            "reverse_each_word('123 456') == '321 654'",
            "reverse_each_word('Hi!') == '!iH'",
        ],
    },
    {
        "entry_point": "factorial",
        "tags": ["math", "recursion"],
        "doc": r"""
            Return ``n!`` for ``n >= 0`` (with ``0! == 1``).

            >>> factorial(5)
            120
        """,
        "src": r"""
            def factorial(n: int) -> int:
                result = 1
                for i in range(2, n + 1):
                    result *= i
                return result
        """,
        "visible": ["factorial(0) == 1", "factorial(3) == 6"],
        "hidden": [
            "factorial(1) == 1",
            "factorial(2) == 2",
            "factorial(10) == 3628800",
            "factorial(20) == 2432902008176640000",
            "factorial(4) == 24",
        ],
    },
]
