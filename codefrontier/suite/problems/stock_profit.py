from codefrontier.suite.gen import ints
from codefrontier.suite.spec import Family

FAMILY = Family(
    slug="stock-profit",
    title="Best time to buy and sell",
    difficulty="easy",
    kind="call",
    func_names=("maxProfit",),
    starter_code="class Solution:\n    def maxProfit(self, prices: List[int]) -> int:\n        ",
    statements=("""\
prices[i] is a stock's price on day i. Buy on one day and sell on a later day;
return the largest profit, or 0 if no trade makes money.

Constraints: 1 <= len(prices) <= 10^5, 0 <= prices[i] <= 10^4.""",),
    efficient="""\
class Solution:
    def maxProfit(self, prices: List[int]) -> int:
        lowest, best = prices[0], 0
        for p in prices:
            lowest = min(lowest, p)
            best = max(best, p - lowest)
        return best
""",
    slow="""\
class Solution:
    def maxProfit(self, prices: List[int]) -> int:
        best = 0
        for i in range(len(prices)):
            for j in range(i + 1, len(prices)):
                best = max(best, prices[j] - prices[i])
        return best
""",
    buggy="""\
class Solution:
    def maxProfit(self, prices: List[int]) -> int:
        return max(prices) - min(prices)
""",
    generate=lambda rng, n, knobs: (ints(rng, n, 0, 10000),),
    edge_cases=(([7, 1, 5, 3, 6, 4],), ([7, 6, 4, 3, 1],), ([3],)),
)
