#!/usr/bin/env python3
"""Re-derive the stated input-size bounds of contest problems from three public
git snapshots (read-only, via `git --git-dir=... show`).  Plain python3 only.

Sources (bare clones, `git clone --bare https://github.com/OWNER/NAME DIR`, at the
commits docs/data/contest-constraints.csv names; set their folders with env vars):
  LCB   = $LCB_GIT  (default /work/.mirror/matt-seb-ho+mem2/repo)
          file data/livecodebench_v56/problems.jsonl  -- LiveCodeBench release_v5+v6
          (342 problems: AtCoder + LeetCode) copied from HF livecodebench/code_generation_lite
  CC    = $CC_GIT   (default /work/.mirror/justinchiu-test+codecontests-repo/repo)
          files problems_original/cluster*/*/PROBLEM.md -- 300 Codeforces problems from
          deepmind/code_contests (train split), 10 topic clusters x 30
  DOOCS = $DOOCS_GIT (default /work/.mirror/doocs+leetcode/repo)
          files solution/*/*/README_EN.md -- LeetCode statements with "Constraints:" lists

Usage:  python3 benchmarks/contest_constraints.py [outdir]   -> writes constraints.csv (+ constraints_doocs_all.csv)
        and prints the decade tables used in REPORT.md.

Definition of max_size_bound: the largest stated upper bound among variables that
size the input (array/string lengths, counts N/M/Q/T/H/W that index input items,
"sum of N over test cases", X.length, |S|).  Value bounds (a_i <= 1e9, a scalar N that
sizes nothing) are ignored.  A problem is
  status=ok      at least one size-bound found
  status=scalar  inequalities parsed but none is a size bound (scalar-only input)
  status=fail    no inequality could be parsed -> dropped
"""
import csv
import datetime as dt
import html
import json
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict

LCB_GIT = os.environ.get("LCB_GIT", "/work/.mirror/matt-seb-ho+mem2/repo")
CC_GIT = os.environ.get("CC_GIT", "/work/.mirror/justinchiu-test+codecontests-repo/repo")
DOOCS_GIT = os.environ.get("DOOCS_GIT", "/work/.mirror/doocs+leetcode/repo")
LCB_PATH = "data/livecodebench_v56/problems.jsonl"


# ----------------------------------------------------------------- git helpers
def git(gitdir, *args):
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True,
                          capture_output=True).stdout


def head(gitdir):
    return git(gitdir, "rev-parse", "HEAD").decode().strip()


def ls(gitdir, pathspec_re):
    names = git(gitdir, "ls-tree", "-r", "--name-only", "HEAD").decode().splitlines()
    return sorted(n for n in names if re.search(pathspec_re, n))


def cat_many(gitdir, paths):
    """Read many blobs at HEAD with one `git cat-file --batch`."""
    inp = "".join(f"HEAD:{p}\n" for p in paths).encode()
    out = subprocess.run(["git", "--git-dir", gitdir, "cat-file", "--batch"], input=inp,
                         check=True, capture_output=True).stdout
    res, i = {}, 0
    for p in paths:
        nl = out.index(b"\n", i)
        hdr = out[i:nl].split()
        size = int(hdr[2])
        res[p] = out[nl + 1:nl + 1 + size].decode("utf-8", "replace")
        i = nl + 1 + size + 1
    return res


# ------------------------------------------------------------- normalisation
NUM = r"(?:\d+(?:\.\d+)?\s*\*\s*)?\d+\s*\^\s*\d+|\d+(?:\.\d+)?"
NUM_RE = re.compile(NUM)
LOST_SUP = Counter()  # how often the "105 means 10^5" rule fired (Codeforces only)


def norm(s, lost_superscripts=False, is_html=False):
    if is_html:  # doocs README_EN.md: HTML with &lt; escapes; other sources are plain text
        s = re.sub(r"<sup>\s*(.*?)\s*</sup>", r"^\1", s, flags=re.S)
        s = re.sub(r"</li>|<br\s*/?>|</p>", "\n", s)
        s = re.sub(r"<[^>]+>", "", s)
        s = html.unescape(s)
    s = s.replace("$$$", "").replace("$", "")
    for a in (r"\leqq", r"\leqslant", r"\leq", r"\le", "≤", "⩽"):
        s = s.replace(a, "<=")
    for a in (r"\geqq", r"\geq", r"\ge", "≥", "⩾"):
        s = s.replace(a, ">=")
    s = s.replace(r"\lt", "<").replace(r"\gt", ">")
    for a in (r"\times", "×", r"\cdot", "⋅", "·", "∙"):
        s = s.replace(a, "*")
    s = re.sub(r"\\[,;!: ]", "", s)
    s = s.replace(r"\mathrm", "").replace(r"\text", "").replace(r"\left", "").replace(r"\right", "")
    s = s.replace("{", "").replace("}", "")
    # digit groups "200 000", "200\u2009000", "200,000"
    s = re.sub(r"(?<=\d)[ \u2009\u202f\u00a0,](?=\d{3}(?!\d))", "", s)
    s = re.sub(r"(?<=\d)[ \u2009\u202f\u00a0,](?=\d{3}(?!\d))", "", s)
    if lost_superscripts:
        # CodeContests' old Codeforces statements lost <sup>: "n <= 105" means 10^5
        def fix(m):
            LOST_SUP[m.group(0)] += 1
            return f"{m.group(1) or ''}10^{m.group(2)}"
        s = re.sub(r"(?<![\d.^])((?:\d+(?:\.\d+)?\s*\*\s*))?10([4-9]|1[0-8])(?![\d^])", fix, s)
    return s


def num_value(tok):
    tok = re.sub(r"\s+", "", tok)
    m = re.fullmatch(r"(?:(\d+(?:\.\d+)?)\*)?(\d+)\^(\d+)", tok)
    if m and int(m.group(3)) > 300:
        return float("inf")
    if m:
        return float(m.group(1) or 1) * float(m.group(2)) ** int(m.group(3))
    return float(tok)


LEAD_NUM = re.compile(r"\s*(?:min\s*\(\s*)?(" + NUM + r")")
VAR_TAIL = re.compile(
    r"((?:\|[^|<>=]{1,30}\||sum\s*\([^()<>]*\)|[A-Za-z][\w.\[\]()']*)"
    r"(?:\s*(?:,|==|=|and)\s*(?:\|[^|<>=]{1,30}\||[A-Za-z][\w.\[\]()']*))*)\s*\(?\s*$")


def inequalities(text):
    """Yield (var, bound, context) for every 'VAR <= NUM' found in chains."""
    out = []
    for line in re.split(r"\n|;|(?<=[a-z])\.\s", text):
        toks = re.split(r"<=|(?<![<-])<(?![=-])", line)
        for i in range(1, len(toks)):
            mm = re.match(r"\s*min\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)", toks[i])
            if mm:  # "<= min(10^5, n*(n-1)/2)": the stated numeric cap
                caps = [num_value(a) for a in mm.group(1).split(",") if re.fullmatch(r"\s*(?:" + NUM + r")\s*", a)]
                if not caps:
                    continue
                bound_override = max(caps)
            else:
                bound_override = None
            m = LEAD_NUM.match(toks[i])
            if not m:
                continue
            # upper bound must not itself be part of an expression ("2 * n", "n - 1", "10^5 + k")
            rest = toks[i][m.end():]
            if bound_override is None and (re.match(r"\s*[a-zA-Z(]", rest) or re.match(r"\s*[*+/-]\s*[A-Za-z(]", rest)) \
                    and not re.match(r"\s*(and|,|or|\)|for|where|if|inclusive)\b", rest):
                continue
            vt = VAR_TAIL.search(toks[i - 1])
            if not vt:
                continue
            bound = bound_override if bound_override is not None else num_value(m.group(1))
            for v in re.split(r"\s*(?:,|==|=|\band\b)\s*", vt.group(1)):
                v = v.strip().strip("(").strip()
                if v and not re.fullmatch(r"[\d.]+", v):
                    out.append((v, bound, line))
    # natural-language forms
    for m in re.finditer(r"(?i)\b(sum|total)\b([^.\n]{0,80}?)(?:does not exceed|doesn't exceed|"
                         r"not exceed|is at most|at most|is not greater than|<=)\s*(" + NUM + ")", text):
        out.append(("sum " + m.group(2).strip(), num_value(m.group(3)), m.group(0)))
    for m in re.finditer(r"(\|?[A-Za-z][\w|]*)\b([^.\n<>=]{0,50}?)\bbetween\s+(" + NUM + r")\s+and\s+(" + NUM + ")",
                         text):
        v = m.group(1)
        if "length" in m.group(2):
            v = "length of " + v
        out.append((v, num_value(m.group(4)), m.group(0)))
    for m in re.finditer(r"(?i)\blength\s+(?:of\s+)?(?:exactly\s+)?(?:[^.\n]{0,30}?(?:at most|not exceeding|"
                         r"up to|to)\s+)?(" + NUM + r")(?![\d^*])", text):
        out.append(("length", num_value(m.group(1)), m.group(0)))
    return out


NOUNS = (r"vertices|vertex|nodes|edges|rows|columns|queries|query|people|persons|cards|cells|points|"
         r"strings|integers|numbers|elements|operations|balls|boxes|items|segments|cities|roads|"
         r"houses|events|lines|test cases|testcases|students|players|stones|characters|letters|"
         r"intervals|pairs|towns|trees|piles|cows|friends|tasks|words|children|days|monsters|"
         r"squares|sheets|bags|robots|commands|dishes|users|positions|buildings|lamps|coins")


def is_size_var(v, ctx_text, input_fmt, lengths_alias, platform):
    lv = v.lower()
    if lv.startswith("sum"):
        return bool(re.search(r"length|\bn\b|\bm\b|\bq\b|test|size|\|", lv))
    if lv.startswith("|"):
        inner = v.strip("| ")
        return bool(re.fullmatch(r"[A-Za-z]\w*", inner)) and not re.search(r"_|[a-z][ij]$", inner)
    if "length" in lv or "len(" in lv or ".size" in lv:
        return True
    if re.search(r"[_\[]", v):  # indexed quantity (a_i, nums[i], A_{i,j}) -> value
        return False
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9']*", v):
        return False
    e = re.escape(v)
    if v in lengths_alias:
        return True
    # used as an index bound in the input format: A_N, A_{N}, S_{H,W}, u_Q, a_n ...
    if input_fmt and re.search(r"_\{?[^\s{}]*?(?<![A-Za-z])" + e + r"(?![A-Za-z0-9])", input_fmt):
        return True
    if platform == "codeforces" and re.fullmatch(r"[a-z]{1,2}[ij]", v) and v not in ("i", "j"):
        return False  # lost subscript: "ai" is a_i (CodeContests text lost <sub>)
    grid = r"\s*(?:grid|matrix|board|table|field|rectangle|array|binary|integer|2D|chessboard|square)"
    pats = [
        r"(?:length|size)\s+(?:of\s+)?(?:exactly\s+|at most\s+)?" + e + r"\b",
        r"\|\s*\w+\s*\|\s*=\s*" + e + r"\b",
        r"\b(?:are|is|given|with|of|has|have|contains|contain|consists of|and|into|describe)\s+" + e +
        r"\s+(?:[\w-]+\s+){0,2}(?:" + NOUNS + r")\b",
        r"\b" + e + r"\s*[x*]\s*[A-Za-z]\b" + grid,
        r"\b[A-Za-z]\s*[x*]\s*" + e + r"\b" + grid,
        r"\b" + e + r"\s+rows\b", r"\b" + e + r"\s+columns\b",
        r"\bnext\s+" + e + r"\s+lines",
        r"\b0\s+to\s+" + e + r"\s*-\s*1\b",
        r"\b" + e + r"\s*<=\s*(?:" + NUM + r")\s*\)\s*[—–-]+\s*the\s+(?:number|length|size|count|amount)\s+of\b",
    ]
    return any(re.search(p, ctx_text) for p in pats)


def analyse(platform, constraints, context, input_fmt, lost_sup=False, is_html=False):
    c = norm(constraints, lost_sup, is_html)
    ctx = norm(context, lost_sup, is_html)
    ifmt = (input_fmt or "").replace("{", "").replace("}", "")
    ineqs = inequalities(c)
    if not ineqs:
        return dict(status="fail", max_size_bound="", size_var="", value_bound="", bytes_per_elem="",
                    est_max_input_bytes="")
    aliases = set()
    for m in re.finditer(r"\b([A-Za-z]\w*)\s*==?\s*[\w.\[\]]*\.length\b", c):
        aliases.add(m.group(1))
    for m in re.finditer(r"\b[\w.\[\]]*\.length\s*==?\s*([A-Za-z]\w*)\b", c):
        aliases.add(m.group(1))
    size, value = [], []
    for v, b, line in ineqs:
        (size if is_size_var(v, ctx, ifmt, aliases, platform) else value).append((b, v, line))
    vb = max((b for b, _, _ in value), default=None)
    if not size:
        return dict(status="scalar", max_size_bound="", size_var="",
                    value_bound=fmt(vb), bytes_per_elem="", est_max_input_bytes="")
    b, v, line = max(size)
    stringy = bool(re.search(r"(?i)\bstring|\bword|\bs\.length|\|[A-Za-z]+\|", v + " " + line)) or \
        (v.lower().startswith(("s", "word", "t.")) and "length" in v.lower())
    if stringy:
        bpe = 1
    elif vb is not None and vb >= 1:
        bpe = len(str(int(vb))) + 1
    else:
        bpe = 2
    return dict(status="ok", max_size_bound=fmt(b), size_var=v.strip()[:40], value_bound=fmt(vb),
                bytes_per_elem=bpe, est_max_input_bytes=int(b * bpe))


def fmt(x):
    if x is None or x == "":
        return ""
    return int(x) if float(x).is_integer() else x


# ------------------------------------------------------------------ sources
def section(text, start_pats, end_pats):
    s = None
    for p in start_pats:
        m = re.search(p, text)
        if m:
            s = m.end()
            break
    if s is None:
        return ""
    e = len(text)
    for p in end_pats:
        m = re.compile(p).search(text, s)
        if m:
            e = min(e, m.start())
    return text[s:e]


def load_lcb():
    commit = head(LCB_GIT)
    rows = [json.loads(line) for line in git(LCB_GIT, "show", f"HEAD:{LCB_PATH}").decode().splitlines()
            if line.strip()]
    out = []
    for r in rows:
        q = r["question_content"]
        body = q.split("Sample Input 1")[0] if r["platform"] == "atcoder" else q.split("Example 1")[0]
        if r["platform"] == "atcoder":
            cons = section(q, [r"\nConstraints\s*\n"], [r"\nSample Input", r"\nInput\s*\n", r"\nOutput\s*\n"])
            ifmt = section(q, [r"\nInput\s*\n"], [r"\nOutput\s*\n", r"\nConstraints\s*\n"])
            pid = r["question_id"]
            letter = pid.split("_")[-1].upper()
            diff = r["difficulty"]
        else:
            cons = section(q, [r"Constraints:"], [r"\nFollow[- ]up", r"\nNote:"])
            ifmt = ""
            pid = r["question_id"]
            letter = ""
            diff = r["difficulty"]
        res = analyse(r["platform"], cons, body + "\n" + cons, ifmt)
        out.append(dict(platform=r["platform"], problem_id=pid, difficulty=diff, **res,
                        dataset=f"LiveCodeBench {r.get('_version', '')}", contest=r.get("contest_id", ""),
                        contest_date=r.get("contest_date", "")[:10], problem_letter=letter,
                        title=r.get("question_title", ""),
                        source_repo="matt-seb-ho/mem2", source_path=LCB_PATH, source_commit=commit))
    return out


def load_cc():
    commit = head(CC_GIT)
    paths = ls(CC_GIT, r"^problems_original/cluster\d+/[^/]+/PROBLEM\.md$")
    blobs = cat_many(CC_GIT, paths)
    out = []
    for p in paths:
        t = blobs[p]
        desc = section(t, [r"## Description\s*\n"], [r"\n## Categories", r"\n## Source"])
        inp = section(desc, [r"\nInput\s*\n"], [r"\nOutput\s*\n", r"\nExamples?\s*\n"])
        cons = inp if inp else desc
        res = analyse("codeforces", cons, desc, inp, lost_sup=True)
        if res["status"] != "ok" and inp:  # bounds stated in the legend instead
            res2 = analyse("codeforces", desc, desc, inp, lost_sup=True)
            if res2["status"] == "ok" or res["status"] == "fail":
                res = res2
        folder = p.split("/")[2]
        m = re.match(r"(\d+)_([a-z]\d?)_", folder)
        pid = f"{m.group(1)}{m.group(2).upper()}" if m else folder
        dm = re.search(r"\*\*Difficulty:\*\*\s*(\d+)", t)
        d = int(dm.group(1)) if dm else None
        # code_contests Problem.Difficulty enum: 7=A, 8=B, ..., (1..6 = EASY..EXTERNAL)
        diff = chr(ord("A") + d - 7) if d and d >= 7 else f"enum{d}"
        out.append(dict(platform="codeforces", problem_id=pid, difficulty=diff, **res,
                        dataset="CodeContests(train) topic-clustered", contest=m.group(1) if m else "",
                        contest_date="", problem_letter=diff, title=folder,
                        source_repo="justinchiu-test/codecontests-repo", source_path=p, source_commit=commit))
    return out


# LeetCode contest dates anchored on LCB rows: weekly-contest-432 = 2025-01-05 (Sunday);
# biweekly contests are every 14 days, biweekly-147 = 2025-01-04 (Saturday).
W_ANCHOR = (432, dt.date(2025, 1, 5))
B_ANCHOR = (147, dt.date(2025, 1, 4))


def lc_contest_date(source):
    m = re.match(r"(Weekly|Biweekly) Contest (\d+)", source or "")
    if not m:
        return None
    k = int(m.group(2))
    if m.group(1) == "Weekly":
        return W_ANCHOR[1] + dt.timedelta(days=7 * (k - W_ANCHOR[0]))
    return B_ANCHOR[1] + dt.timedelta(days=14 * (k - B_ANCHOR[0]))


def load_doocs():
    commit = head(DOOCS_GIT)
    paths = ls(DOOCS_GIT, r"^solution/\d{4}-\d{4}/[^/]+/README_EN\.md$")
    blobs = cat_many(DOOCS_GIT, paths)
    out = []
    for p in paths:
        t = blobs[p]
        fm = t.split("---", 2)[1] if t.startswith("---") else ""
        diff = (re.search(r"\ndifficulty:\s*(\w+)", fm) or [None, ""])[1]
        rating = (re.search(r"\nrating:\s*(\d+)", fm) or [None, ""])[1]
        src = (re.search(r"\nsource:\s*(.+)", fm) or [None, ""])[1].strip()
        desc = section(t, [r"<!-- description:start -->"], [r"<!-- description:end -->"])
        cons = section(desc, [r"Constraints:\s*</strong>\s*</p>", r"Constraints:"], [r"Follow[- ]?up", r"<strong>Note"])
        pid = p.split("/")[2].split(".")[0]
        title = re.sub(r"^\d+\.", "", p.split("/")[2]).strip()
        res = analyse("leetcode", cons, desc, "", is_html=True)
        d = lc_contest_date(src)
        out.append(dict(platform="leetcode", problem_id=pid, difficulty=diff, **res,
                        dataset="doocs/leetcode catalogue", contest=src, contest_date=d.isoformat() if d else "",
                        problem_letter=rating, title=title,
                        source_repo="doocs/leetcode", source_path=p, source_commit=commit))
    return out


# ------------------------------------------------------------------ reporting
BINS = [(0, 10, "(0,10]"), (10, 1e2, "(10,1e2]"), (1e2, 1e3, "(1e2,1e3]"), (1e3, 1e4, "(1e3,1e4]"),
        (1e4, 1e5, "(1e4,1e5]"), (1e5, 1e6, "(1e5,1e6]"), (1e6, float("inf"), ">1e6")]


def binlabel(b):
    for lo, hi, lab in BINS:
        if lo < b <= hi:
            return lab
    return "?"


def table(rows, key):
    groups = defaultdict(list)
    for r in rows:
        groups[key(r)].append(r)
    lines = ["| group | n | fail | scalar | " + " | ".join(label for *_, label in BINS) + " | median bound |",
             "|---|---|---|---|" + "---|" * len(BINS) + "---|"]
    for g in sorted(groups, key=str):
        rs = groups[g]
        ok = [float(r["max_size_bound"]) for r in rs if r["status"] == "ok"]
        c = Counter(binlabel(b) for b in ok)
        n = len(ok)
        med = sorted(ok)[n // 2] if n else float("nan")
        cells = " | ".join(f"{100 * c[label] / n:.0f}%" if n else "-" for *_, label in BINS)
        lines.append(f"| {g} | {n} | {sum(r['status'] == 'fail' for r in rs)} | "
                     f"{sum(r['status'] == 'scalar' for r in rs)} | {cells} | {med:g} |")
    return "\n".join(lines)


COLS = ["platform", "problem_id", "difficulty", "max_size_bound", "source_repo", "source_path", "source_commit",
        "dataset", "status", "size_var", "value_bound", "bytes_per_elem", "est_max_input_bytes", "contest",
        "contest_date", "problem_letter", "title"]


def write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLS)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in COLS})


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    lcb, cc, doocs = load_lcb(), load_cc(), load_doocs()
    # LeetCode contest problems inside LiveCodeBench's collection window (2023-05-01 .. 2025-04-30)
    win = [r for r in doocs if r["contest_date"] and "2023-05-01" <= r["contest_date"] <= "2025-04-30"]
    for r in win:
        r["dataset"] = "doocs LeetCode contests in LCB window"
    # drop the doocs copies of problems already present in the LCB file (matched by title)
    def key(t):
        return re.sub(r"\W+", " ", t).strip().lower()

    lcb_titles = {key(r["title"]) for r in lcb if r["platform"] == "leetcode"}
    n0 = len(win)
    win = [r for r in win if key(r["title"]) not in lcb_titles]
    print(f"doocs LeetCode contest problems in LCB window: {n0}; after removing {n0 - len(win)} "
          f"that are in the LCB v5+v6 file: {len(win)}\n")
    main_rows = lcb + cc + win
    write(os.path.join(outdir, "constraints.csv"), main_rows)
    write(os.path.join(outdir, "constraints_doocs_all.csv"), doocs)

    print("## Overall (LCB v5+v6 + CodeContests sample + doocs LeetCode-in-LCB-window)\n")
    print(table(main_rows, lambda r: "ALL"))
    print("\n## Per dataset x platform\n")
    print(table(main_rows, lambda r: f"{r['dataset']} / {r['platform']}"))
    print("\n## LiveCodeBench v5+v6 by platform x difficulty\n")
    print(table(lcb, lambda r: f"{r['platform']} {r['difficulty']}"))
    print("\n## LiveCodeBench AtCoder by problem letter (ABC/ARC/AGC)\n")
    print(table([r for r in lcb if r["platform"] == "atcoder"],
                lambda r: f"{r['contest'][:3]} {r['problem_letter']}"))
    print("\n## CodeContests sample (Codeforces) by problem letter\n")
    print(table(cc, lambda r: r["difficulty"] if r["difficulty"] in ("A", "B", "C", "D") else
                ("E+" if len(r["difficulty"]) == 1 else "unlabelled")))
    print("\n## doocs LeetCode contests in LCB window by difficulty\n")
    print(table(win, lambda r: r["difficulty"]))
    print("\n## doocs full LeetCode catalogue by difficulty\n")
    print(table(doocs, lambda r: r["difficulty"]))

    # cross-check: LCB LeetCode vs doocs parse of the same problems (matched by title)
    by_title = {re.sub(r"\W+", " ", r["title"]).strip().lower(): r for r in doocs}
    agree = tot = 0
    mism = []
    for r in lcb:
        if r["platform"] != "leetcode" or r["status"] != "ok":
            continue
        d = by_title.get(re.sub(r"\W+", " ", r["title"]).strip().lower())
        if d and d["status"] == "ok":
            tot += 1
            if float(d["max_size_bound"]) == float(r["max_size_bound"]):
                agree += 1
            else:
                mism.append((r["problem_id"], r["max_size_bound"], d["problem_id"], d["max_size_bound"]))
    print(f"\ncross-check LCB-LeetCode vs doocs (same problem by title): {agree}/{tot} identical bounds; "
          f"mismatches: {mism[:10]}")
    print(f"lost-superscript repairs in CodeContests text: {sum(LOST_SUP.values())} ({dict(LOST_SUP.most_common(8))})")

    ok = [r for r in main_rows if r["status"] == "ok"]
    big = [r for r in ok if float(r["max_size_bound"]) >= 1e5]
    if big:
        eb = sorted(r["est_max_input_bytes"] for r in big)
        bp = Counter(r["bytes_per_elem"] for r in big)
        print(f"\nbound>=1e5: n={len(big)}, est. bytes of a max-size input: median {eb[len(eb) // 2]:,}, "
              f"p10 {eb[len(eb) // 10]:,}, p90 {eb[9 * len(eb) // 10]:,}; bytes/elem counts {dict(bp.most_common())}")
    eb = sorted(r["est_max_input_bytes"] for r in ok)
    print(f"all ok: est. bytes median {eb[len(eb) // 2]:,}, p90 {eb[9 * len(eb) // 10]:,}")


if __name__ == "__main__":
    main()
