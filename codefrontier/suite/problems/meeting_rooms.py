from codefrontier.suite.spec import Family, SlowProgram


def knobs(rng):
    # minutes of cleaning a room needs after each meeting before the next may start there
    return {"c": rng.randint(1, 30)}


def generate(rng, n, knobs):
    meetings = []
    for _ in range(max(1, n)):
        start = rng.randint(0, 10 * max(1, n))
        meetings.append([start, start + rng.randint(1, 40)])
    return (meetings,)


def edge_cases(knobs):
    c = knobs["c"]
    return (([[0, 30], [5, 10], [15, 20]],), ([[7, 10], [2, 4]],), ([[1, 5], [5, 9]],),
            ([[1, 5], [5 + c, 9 + c]],), ([[0, 4], [3 + c, 8 + c], [4 + c, 9 + c]],))


FAMILY = Family(
    slug="meeting-rooms",
    title="Meeting rooms",
    difficulty="medium",
    kind="call",
    knobs=knobs,
    func_names=("minMeetingRooms", "roomsNeeded", "minRooms", "countRooms"),
    starter_code=("class Solution:\n    def ${func}(self, intervals: List[List[int]])"
                  " -> int:\n        "),
    statements=(
        """\
intervals[i] = [start, end) is a meeting. After a meeting ends at time t, its
room must be cleaned for $c minutes: it can hold a meeting starting at t + $c or
later. Return the fewest rooms that hold all meetings.

Constraints: 1 <= len(intervals) <= $max_n, 0 <= start < end <= 10^6.""",
        """\
Each meeting [start, end) needs a room for its whole duration, and a room that
a meeting leaves at time end is ready again only at time end + $c (cleaning).
Given the meetings in intervals, return the minimum number of rooms.

Constraints: 1 <= len(intervals) <= $max_n, 0 <= start < end <= 10^6.""",
        """\
Return how many rooms are needed to schedule every meeting in intervals, where
intervals[i] = [start, end). Rooms need a $c-minute cleaning after each meeting,
so a meeting ending at t frees its room for one starting at t + $c.

Constraints: 1 <= len(intervals) <= $max_n, 0 <= start < end <= 10^6.""",
    ),
    efficient="""\
class Solution:
    def ${func}(self, intervals: List[List[int]]) -> int:
        events = sorted([(s, 1) for s, _ in intervals] + [(e + $c, -1) for _, e in intervals])
        rooms = best = 0
        for _, change in events:
            rooms += change
            best = max(best, rooms)
        return best
""",
    slow=(SlowProgram("quadratic", """\
class Solution:
    def ${func}(self, intervals: List[List[int]]) -> int:
        best = 0
        for s, _ in intervals:
            best = max(best, sum(1 for a, b in intervals if a <= s < b + $c))
        return best
""", 5),),
    buggy="""\
class Solution:
    def ${func}(self, intervals: List[List[int]]) -> int:
        events = sorted([(s, -1) for s, _ in intervals] + [(e + $c, 1) for _, e in intervals])
        rooms = best = 0
        for _, change in events:
            rooms -= change
            best = max(best, rooms)
        return best
""",
    generate=generate,
    edge_cases=edge_cases,
)
