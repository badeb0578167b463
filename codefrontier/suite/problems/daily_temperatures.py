from codefrontier.suite.spec import Family

FAMILY = Family(
    slug="daily-temperatures",
    title="Days until warmer",
    difficulty="medium",
    kind="call",
    func_names=("dailyTemperatures",),
    starter_code=("class Solution:\n    def dailyTemperatures(self, temperatures: List[int])"
                  " -> List[int]:\n        "),
    statements=("""\
For each day, return how many days you wait for a strictly warmer temperature,
or 0 if no later day is warmer.

Constraints: 1 <= len(temperatures) <= 10^5, 30 <= temperatures[i] <= 100.""",),
    efficient="""\
class Solution:
    def dailyTemperatures(self, temperatures: List[int]) -> List[int]:
        answer = [0] * len(temperatures)
        stack = []
        for i, t in enumerate(temperatures):
            while stack and temperatures[stack[-1]] < t:
                j = stack.pop()
                answer[j] = i - j
            stack.append(i)
        return answer
""",
    slow="""\
class Solution:
    def dailyTemperatures(self, temperatures: List[int]) -> List[int]:
        n = len(temperatures)
        answer = [0] * n
        for i in range(n):
            for j in range(i + 1, n):
                if temperatures[j] > temperatures[i]:
                    answer[i] = j - i
                    break
        return answer
""",
    buggy="""\
class Solution:
    def dailyTemperatures(self, temperatures: List[int]) -> List[int]:
        answer = [0] * len(temperatures)
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
