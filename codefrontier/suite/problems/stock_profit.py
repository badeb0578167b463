from codefrontier.suite.gen import ints
from codefrontier.suite.spec import Family, SlowProgram


def generate(rng, n, knobs):
    prices = ints(rng, n, 0, 10000)
    if rng.random() < 0.5:  # a falling market with a few swaps: the peak comes before the low
        prices.sort(reverse=True)
        for _ in range(n // 10 + 1):
            i, j = rng.randrange(n), rng.randrange(n)
            prices[i], prices[j] = prices[j], prices[i]
    return (prices,)


def knobs(rng):
    # a broker's fee charged once per trade, subtracted from the profit
    return {"fee": rng.randint(1, 2000)}


FAMILY = Family(
    slug="stock-profit",
    title="Best time to buy and sell",
    difficulty="easy",
    kind="call",
    time_limit_s=0.5,
    knobs=knobs,
    func_names=("maxProfit", "bestProfit", "maxGain", "singleTradeProfit"),
    starter_code="class Solution:\n    def ${func}(self, prices: List[int]) -> int:\n        ",
    statements=(
        """\
prices[i] is a stock's price on day i. Buy on one day and sell on a later day;
the broker charges a fee of $fee for the trade. Return the largest profit
(selling price minus buying price minus $fee), or 0 if no trade makes money.

Constraints: 1 <= len(prices) <= $max_n, 0 <= prices[i] <= 10^4.""",
        """\
You may make at most one trade: buy one share on some day and sell it on a
strictly later day, where prices[i] is the price on day i. Each trade costs a
fixed fee of $fee. Return the best net gain you can achieve; if every trade
would gain nothing or lose money, return 0 (don't trade).

Constraints: 1 <= len(prices) <= $max_n, 0 <= prices[i] <= 10^4.""",
        """\
Given daily prices, choose days i < j to buy and sell so that
prices[j] - prices[i] - $fee is as large as possible ($fee is the trading fee).
Return that maximum, or 0 when it is not positive.

Constraints: 1 <= len(prices) <= $max_n, 0 <= prices[i] <= 10^4.""",
    ),
    efficient="""\
class Solution:
    def ${func}(self, prices: List[int]) -> int:
        lowest, best = prices[0], 0
        for p in prices:
            lowest = min(lowest, p)
            best = max(best, p - lowest - $fee)
        return best
""",
    slow=(
        # every stretch of days as a recursion without memo: the best trade in a list of
        # days buys on the first and sells on the last, or leaves out one of the two
        SlowProgram("exponential", """\
class Solution:
    def ${func}(self, prices: List[int]) -> int:
        def best(days):
            if len(days) < 2:
                return 0
            return max(days[-1] - days[0] - $fee, best(days[1:]), best(days[:-1]))

        return best(prices)
""", 2),
        # holding from day i to day j earns the sum of the daily changes in between
        SlowProgram("cubic", """\
class Solution:
    def ${func}(self, prices: List[int]) -> int:
        changes = [prices[k + 1] - prices[k] for k in range(len(prices) - 1)]
        best = 0
        for i in range(len(changes)):
            for j in range(i + 1, len(changes) + 1):
                profit = sum(changes[i:j]) - $fee
                if profit > best:
                    best = profit
        return best
""", 4),
        # buy on every day in turn and sell on the highest later day
        SlowProgram("quadratic", """\
class Solution:
    def ${func}(self, prices: List[int]) -> int:
        best = 0
        for i in range(len(prices) - 1):
            profit = max(prices[i + 1:]) - prices[i] - $fee
            if profit > best:
                best = profit
        return best
""", 5),
    ),
    buggy="""\
class Solution:
    def ${func}(self, prices: List[int]) -> int:
        return max(0, max(prices) - min(prices) - $fee)
""",
    generate=generate,
    edge_cases=lambda knobs: (([7, 1, 5, 3, 6, 4],), ([7, 6, 4, 3, 1],), ([3],),
                              ([1, 1 + knobs["fee"]],), ([2, 1, 3 + knobs["fee"]],)),
)
