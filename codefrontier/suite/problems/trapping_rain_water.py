from codefrontier.suite.gen import ints
from codefrontier.suite.spec import Family, SlowProgram


def knobs(rng):
    # the height of the two walls that close the row of bars at both ends
    return {"wall": rng.randint(1, 500)}


FAMILY = Family(
    slug="trapping-rain-water",
    title="Trapping rain water",
    difficulty="medium",
    time_limit_s=2.0,  # the slicing program needs up to 0.3 s below 10^5 bytes
    kind="call",
    knobs=knobs,
    func_names=("trap", "trappedWater", "rainWater", "waterVolume"),
    starter_code="class Solution:\n    def ${func}(self, height: List[int]) -> int:\n        ",
    statements=(
        """\
height[i] is the height of a bar of width 1. The row of bars is closed by a
wall of height $wall just left of the first bar and another just right of the
last bar. Return how many units of water the bars and walls hold after rain.

Constraints: 1 <= len(height) <= $max_n, 0 <= height[i] <= 10^5.""",
        """\
Bars of width 1 and heights height[0], height[1], ... stand side by side
between two walls, each $wall high, that touch the first and the last bar. Rain
fills every dip: the water above bar i rises to the lower of the highest
obstacles (bar or wall) on its left and on its right, if that is above the bar.
Return the total volume of water.

Constraints: 1 <= len(height) <= $max_n, 0 <= height[i] <= 10^5.""",
    ),
    efficient="""\
class Solution:
    def ${func}(self, height: List[int]) -> int:
        height = [$wall] + height + [$wall]
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
    slow=(SlowProgram("quadratic", """\
class Solution:
    def ${func}(self, height: List[int]) -> int:
        height = [$wall] + height + [$wall]
        water = 0
        for i in range(len(height)):
            water += min(max(height[:i + 1]), max(height[i:])) - height[i]
        return water
""", 5),),
    buggy="""\
class Solution:
    def ${func}(self, height: List[int]) -> int:
        height = [$wall] + height + [$wall]
        water = 0
        peak = 0
        for h in height:
            peak = max(peak, h)
            water += peak - h
        return water
""",
    generate=lambda rng, n, knobs: (ints(rng, n, 0, 1000),),
    edge_cases=(([0, 1, 0, 2, 1, 0, 1, 3, 2, 1, 2, 1],), ([4, 2, 0, 3, 2, 5],), ([1],),
                ([0, 0, 0],), ([1000, 0, 1000],)),
)
