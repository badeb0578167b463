from codefrontier.suite.spec import Family


def generate(rng, n, knobs):
    meetings = []
    for _ in range(max(1, n)):
        start = rng.randint(0, 10 * max(1, n))
        meetings.append([start, start + rng.randint(1, 40)])
    return (meetings,)


FAMILY = Family(
    slug="meeting-rooms",
    title="Meeting rooms",
    difficulty="medium",
    kind="call",
    func_names=("minMeetingRooms",),
    starter_code=("class Solution:\n    def minMeetingRooms(self, intervals: List[List[int]])"
                  " -> int:\n        "),
    statements=("""\
intervals[i] = [start, end) is a meeting. Return the fewest rooms that hold all
meetings; a meeting ending at time t frees its room for one starting at t.

Constraints: 1 <= len(intervals) <= 10^5, 0 <= start < end <= 10^6.""",),
    efficient="""\
class Solution:
    def minMeetingRooms(self, intervals: List[List[int]]) -> int:
        events = sorted([(s, 1) for s, _ in intervals] + [(e, -1) for _, e in intervals])
        rooms = best = 0
        for _, change in events:
            rooms += change
            best = max(best, rooms)
        return best
""",
    slow="""\
class Solution:
    def minMeetingRooms(self, intervals: List[List[int]]) -> int:
        best = 0
        for s, _ in intervals:
            best = max(best, sum(1 for a, b in intervals if a <= s < b))
        return best
""",
    buggy="""\
class Solution:
    def minMeetingRooms(self, intervals: List[List[int]]) -> int:
        events = sorted([(s, -1) for s, _ in intervals] + [(e, 1) for _, e in intervals])
        rooms = best = 0
        for _, change in events:
            rooms -= change
            best = max(best, rooms)
        return best
""",
    generate=generate,
    edge_cases=(([[0, 30], [5, 10], [15, 20]],), ([[7, 10], [2, 4]],), ([[1, 5], [5, 9]],)),
)
