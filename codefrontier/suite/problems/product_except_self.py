from codefrontier.suite.gen import ints
from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    # Zero, one or two zeros: division-based shortcuts break on a single zero.
    nums = ints(rng, max(2, n), 1, min(10**9, 10 * n))
    for i in rng.sample(range(len(nums)), rng.choice((0, 1, 1, 2))):
        nums[i] = 0
    return (nums,)


def knobs(rng):
    # mod: the modulus of the products, a random prime between 10^8 and 10^9
    mod = rng.randint(10**8, 10**9)
    while any(mod % p == 0 for p in range(2, int(mod**0.5) + 1)):
        mod += 1
    return {"mod": mod}


FAMILY = Family(
    slug="product-except-self",
    title="Product of all the others",
    difficulty="medium",
    time_limit_s=2.0,  # the quadratic program needs up to 0.32 s below 10^5 bytes
    kind="call",
    knobs=knobs,
    func_names=("productExceptSelf", "productOfOthers", "othersProduct", "productsWithoutSelf"),
    starter_code=("class Solution:\n    def ${func}(self, nums: List[int])"
                  " -> List[int]:\n        "),
    statements=(
        """\
Return answer where answer[i] is the product of every element of nums except
nums[i], modulo $mod (a non-negative remainder).

Constraints: 2 <= len(nums) <= $max_n, 0 <= nums[i] <= 10^9.""",
        """\
For each index i of nums, multiply together all the elements at the other
indices and reduce the product modulo $mod. Return the list of these
remainders, in index order.

Constraints: 2 <= len(nums) <= $max_n, 0 <= nums[i] <= 10^9.""",
        """\
Given a list nums of non-negative integers, return a list of the same length
whose i-th entry is the product of all elements except the i-th one, taken
modulo $mod (so every entry lies in [0, $mod)).

Constraints: 2 <= len(nums) <= $max_n, 0 <= nums[i] <= 10^9.""",
    ),
    efficient="""\
class Solution:
    def ${func}(self, nums: List[int]) -> List[int]:
        mod = $mod
        n = len(nums)
        answer = [1] * n
        running = 1
        for i in range(n):
            answer[i] = running
            running = running * nums[i] % mod
        running = 1
        for i in range(n - 1, -1, -1):
            answer[i] = answer[i] * running % mod
            running = running * nums[i] % mod
        return answer
""",
    slow=(SlowProgram("quadratic", """\
class Solution:
    def ${func}(self, nums: List[int]) -> List[int]:
        mod = $mod
        answer = []
        for i in range(len(nums)):
            product = 1
            for x in nums[:i] + nums[i + 1:]:
                product = product * x % mod
            answer.append(product)
        return answer
""", 5),),
    buggy="""\
class Solution:
    def ${func}(self, nums: List[int]) -> List[int]:
        mod = $mod
        total = 1
        for x in nums:
            total = total * x % mod
        return [total * pow(x, mod - 2, mod) % mod for x in nums]
""",
    generate=generate,
    edge_cases=(([1, 2, 3, 4],), ([-0, 5, 0, 3],), ([2, 3],)),
)
