from codefrontier.suite.spec import Family, SlowProgram


def knobs(rng):
    # the answer for a day that no later day is warmer than (never a real wait: waits
    # are 1..99999)
    return {"none": rng.choice((0, -1, 100000, 1000000, 10**9))}


FAMILY = Family(
    slug="daily-temperatures",
    title="Days until warmer",
    difficulty="medium",
    time_limit_s=1.5,  # the forward scan needs up to 0.18 s below 10^5 bytes
    kind="call",
    knobs=knobs,
    func_names=("dailyTemperatures", "daysUntilWarmer", "waitForWarmth", "warmerDayWaits"),
    starter_code=("class Solution:\n    def ${func}(self, temperatures: List[int])"
                  " -> List[int]:\n        "),
    statements=(
        """\
For each day, return how many days you wait for a strictly warmer temperature,
or $none if no later day is warmer.

Constraints: 1 <= len(temperatures) <= $max_n, 30 <= temperatures[i] <= 100.""",
        """\
temperatures[i] is the temperature on day i. Return a list whose i-th entry is
j - i for the first later day j with temperatures[j] > temperatures[i]; when
there is no such day, the entry is $none.

Constraints: 1 <= len(temperatures) <= $max_n, 30 <= temperatures[i] <= 100.""",
        """\
Given daily temperatures, answer for every day: after how many days does a
strictly warmer day come? Days with no warmer day later get the value $none.

Constraints: 1 <= len(temperatures) <= $max_n, 30 <= temperatures[i] <= 100.""",
    ),
    efficient="""\
class Solution:
    def ${func}(self, temperatures: List[int]) -> List[int]:
        answer = [$none] * len(temperatures)
        stack = []
        for i, t in enumerate(temperatures):
            while stack and temperatures[stack[-1]] < t:
                j = stack.pop()
                answer[j] = i - j
            stack.append(i)
        return answer
""",
    slow=(SlowProgram("quadratic", """\
class Solution:
    def ${func}(self, temperatures: List[int]) -> List[int]:
        n = len(temperatures)
        answer = [$none] * n
        for i in range(n):
            for j in range(i + 1, n):
                if temperatures[j] > temperatures[i]:
                    answer[i] = j - i
                    break
        return answer
""", 5),),
    buggy="""\
class Solution:
    def ${func}(self, temperatures: List[int]) -> List[int]:
        answer = [$none] * len(temperatures)
        stack = []
        for i, t in enumerate(temperatures):
            while stack and temperatures[stack[-1]] <= t:
                j = stack.pop()
                answer[j] = i - j
            stack.append(i)
        return answer
""",
    # Slowly cooling weather with a warm day at the end: every naive scan runs long.
    generate=lambda rng, n, knobs: ([max(30, 100 - (70 * i) // max(1, n) - rng.randint(0, 2))
                              for i in range(n - 1)] + [100] if n > 1 else [50],),
    edge_cases=(([73, 74, 75, 71, 69, 72, 76, 73],), ([30, 40, 50, 60],), ([90, 90, 90],)),
)
