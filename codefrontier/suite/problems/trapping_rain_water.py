from codefrontier.suite.gen import ints
from codefrontier.suite.spec import Family

FAMILY = Family(
    slug="trapping-rain-water",
    title="Trapping rain water",
    difficulty="medium",
    kind="call",
    func_names=("trap",),
    starter_code="class Solution:\n    def trap(self, height: List[int]) -> int:\n        ",
    statements=("""\
height[i] is the height of a bar of width 1. Return how many units of water the
bars hold after rain.

Constraints: 1 <= len(height) <= 10^5, 0 <= height[i] <= 10^5.""",),
    efficient="""\
class Solution:
    def trap(self, height: List[int]) -> int:
        left, right = 0, len(height) - 1
        left_max = right_max = water = 0
        while left < right:
            if height[left] < height[right]:
                left_max = max(left_max, height[left])
                water += left_max - height[left]
                left += 1
            else:
                right_max = max(right_max, height[right])
                water += right_max - height[right]
                right -= 1
        return water
""",
    slow="""\
class Solution:
    def trap(self, height: List[int]) -> int:
        water = 0
        for i in range(len(height)):
            water += min(max(height[:i + 1]), max(height[i:])) - height[i]
        return water
""",
    buggy="""\
class Solution:
    def trap(self, height: List[int]) -> int:
        water = 0
        peak = 0
        for h in height:
            peak = max(peak, h)
            water += peak - h
        return water
""",
    generate=lambda rng, n, knobs: (ints(rng, n, 0, 1000),),
    edge_cases=(([0, 1, 0, 2, 1, 0, 1, 3, 2, 1, 2, 1],), ([4, 2, 0, 3, 2, 5],), ([1],)),
)
