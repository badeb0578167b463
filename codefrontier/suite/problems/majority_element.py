from codefrontier.suite.spec import Family, SlowProgram


def knobs(rng):
    # a value is frequent when it fills more than a 1/k share of nums (k = 2: majority)
    return {"k": rng.randint(2, 9)}


def generate(rng, n, knobs):
    n, k = max(n, 1), knobs["k"]
    # small values in small tests (no negative ones up to n = 50): at least k of them fit
    # in 30 bytes, and the value just short of the share (below) then reveals an
    # off-by-one threshold
    top = min(10**6, max(n, k))
    low = 0 if n <= 50 else -top
    values = rng.sample(range(low, top + 1), k)
    nums = []
    for v in values[:rng.randint(0, k - 1)]:  # frequent values: n // k + 1 copies each
        if len(nums) + n // k + 1 <= n:
            nums += [v] * (n // k + 1)
    if len(nums) + n // k <= n:  # one value just short of the share
        nums += [values[-1]] * (n // k)
    # Mostly distinct other values: counting each value by a scan is then quadratic.
    nums += [rng.randint(low, top) for _ in range(n - len(nums))]
    rng.shuffle(nums)
    return (nums,)


FAMILY = Family(
    slug="majority-element",
    title="Majority element",
    difficulty="easy",
    kind="call",
    time_limit_s=1.0,
    knobs=knobs,
    func_names=("majorityElements", "frequentElements", "findFrequent", "heavyHitters"),
    starter_code="class Solution:\n    def ${func}(self, nums: List[int]) -> List[int]:\n        ",
    statements=(
        """\
Return, in increasing order, every value that occurs more than len(nums) / $k
times in nums (an empty list if there is none).

Constraints: 1 <= len(nums) <= $max_n, |nums[i]| <= 10^6.""",
        """\
Call a value of nums frequent when its number of occurrences times $k exceeds
len(nums). Return the list of frequent values, sorted ascending; it may be
empty.

Constraints: 1 <= len(nums) <= $max_n, |nums[i]| <= 10^6.""",
        """\
Some values of the integer array nums may take up more than a 1/$k share of
it, that is, occur more than len(nums) / $k times. Return all such values in
increasing order, or [] when no value does.

Constraints: 1 <= len(nums) <= $max_n, |nums[i]| <= 10^6.""",
    ),
    efficient="""\
class Solution:
    def ${func}(self, nums: List[int]) -> List[int]:
        count = Counter(nums)
        return sorted(x for x, c in count.items() if c * $k > len(nums))
""",
    slow=(SlowProgram("quadratic", """\
class Solution:
    def ${func}(self, nums: List[int]) -> List[int]:
        found = []
        for x in nums:
            count = 0
            for y in nums:
                if y == x:
                    count += 1
            if count * $k > len(nums) and x not in found:
                found.append(x)
        return sorted(found)
""", 5),),
    buggy="""\
class Solution:
    def ${func}(self, nums: List[int]) -> List[int]:
        count = Counter(nums)
        return sorted(x for x, c in count.items() if c >= len(nums) // $k)
""",
    generate=generate,
    edge_cases=lambda knobs: (([3, 2, 3],), ([2, 2, 1, 1, 1, 2, 2],), ([7],),
                              ([9, 9, *range(10, 2 * knobs["k"] + 8)],)),
)
