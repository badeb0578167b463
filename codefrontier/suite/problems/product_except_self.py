from codefrontier.suite.gen import ints
from codefrontier.suite.spec import Family

FAMILY = Family(
    slug="product-except-self",
    title="Product of all the others",
    difficulty="medium",
    kind="call",
    func_names=("productExceptSelf",),
    starter_code=("class Solution:\n    def productExceptSelf(self, nums: List[int])"
                  " -> List[int]:\n        "),
    statements=("""\
Return answer where answer[i] is the product of every element of nums except
nums[i], modulo 10^9 + 7 (a non-negative remainder).

Constraints: 2 <= len(nums) <= 10^5, 0 <= nums[i] <= 10^9.""",),
    efficient="""\
class Solution:
    def productExceptSelf(self, nums: List[int]) -> List[int]:
        mod = 10**9 + 7
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
    slow="""\
class Solution:
    def productExceptSelf(self, nums: List[int]) -> List[int]:
        mod = 10**9 + 7
        answer = []
        for i in range(len(nums)):
            product = 1
            for j in range(len(nums)):
                if j != i:
                    product = product * nums[j] % mod
            answer.append(product)
        return answer
""",
    buggy="""\
class Solution:
    def productExceptSelf(self, nums: List[int]) -> List[int]:
        mod = 10**9 + 7
        total = 1
        for x in nums:
            total = total * x % mod
        return [total * pow(x, mod - 2, mod) % mod for x in nums]
""",
    # Zeros now and then: division-based shortcuts break on them.
    generate=lambda rng, n, knobs: ([0 if rng.random() < 0.02 else x
                              for x in ints(rng, max(2, n), 1, min(10**9, 10 * n))],),
    edge_cases=(([1, 2, 3, 4],), ([-0, 5, 0, 3],), ([2, 3],)),
)
