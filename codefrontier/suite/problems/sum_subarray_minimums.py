from codefrontier.suite.gen import ints
from codefrontier.suite.spec import Family, SlowProgram


def knobs(rng):
    # the modulus of the answer (the true sum reaches 10^14)
    return {"m": rng.randint(10**8, 2 * 10**9)}


FAMILY = Family(
    slug="sum-subarray-minimums",
    time_limit_s=2.0,
    title="Sum of subarray minimums",
    difficulty="hard",
    kind="call",
    knobs=knobs,
    func_names=("sumSubarrayMins", "sumOfMinimums", "subarrayMinTotal", "subarrayMinsSum"),
    starter_code="class Solution:\n    def ${func}(self, arr: List[int]) -> int:\n        ",
    statements=(
        """\
Return the sum of min(b) over every contiguous subarray b of arr,
modulo $m.

Constraints: 1 <= len(arr) <= $max_n, 1 <= arr[i] <= 3 * 10^4.""",
        """\
For each non-empty contiguous subarray of arr, take its smallest element. Add
all these minima together; the total can be very large, so return it modulo
$m.

Constraints: 1 <= len(arr) <= $max_n, 1 <= arr[i] <= 3 * 10^4.""",
        """\
Let S be the sum, over all pairs i <= j, of min(arr[i], ..., arr[j]). Return
S mod $m.

Constraints: 1 <= len(arr) <= $max_n, 1 <= arr[i] <= 3 * 10^4.""",
    ),
    efficient="""\
class Solution:
    def ${func}(self, arr: List[int]) -> int:
        mod = $m
        n = len(arr)
        left, right = [0] * n, [0] * n
        stack = []
        for i in range(n):
            while stack and arr[stack[-1]] > arr[i]:
                stack.pop()
            left[i] = i - (stack[-1] if stack else -1)
            stack.append(i)
        stack = []
        for i in range(n - 1, -1, -1):
            while stack and arr[stack[-1]] >= arr[i]:
                stack.pop()
            right[i] = (stack[-1] if stack else n) - i
            stack.append(i)
        return sum(arr[i] * left[i] * right[i] for i in range(n)) % mod
""",
    slow=(
        SlowProgram("cubic", """\
class Solution:
    def ${func}(self, arr: List[int]) -> int:
        total = 0
        for i in range(len(arr)):
            for j in range(i, len(arr)):
                total += min(arr[i:j + 1])
        return total % $m
""", 4),
        SlowProgram("quadratic", """\
class Solution:
    def ${func}(self, arr: List[int]) -> int:
        total = 0
        for i in range(len(arr)):
            low = arr[i]
            for j in range(i, len(arr)):
                if arr[j] < low:
                    low = arr[j]
                total += low
        return total % $m
""", 5),
    ),
    buggy="""\
class Solution:
    def ${func}(self, arr: List[int]) -> int:
        mod = $m
        n = len(arr)
        left, right = [0] * n, [0] * n
        stack = []
        for i in range(n):
            while stack and arr[stack[-1]] >= arr[i]:
                stack.pop()
            left[i] = i - (stack[-1] if stack else -1)
            stack.append(i)
        stack = []
        for i in range(n - 1, -1, -1):
            while stack and arr[stack[-1]] >= arr[i]:
                stack.pop()
            right[i] = (stack[-1] if stack else n) - i
            stack.append(i)
        return sum(arr[i] * left[i] * right[i] for i in range(n)) % mod
""",
    # Few distinct values (ties are where the buggy variant goes wrong), more as n grows.
    generate=lambda rng, n, knobs: (ints(rng, n, 1, min(30000, max(3, n // 4))),),
    edge_cases=(([3, 1, 2, 4],), ([11, 81, 94, 43, 3],), ([2, 2, 2],)),
)
