#!/usr/bin/env python3
"""Harvests real MIOpenDriver command lines from a git directory of ROCm/MIOpen (every version of
every text file in its history: test/perf_models/*.txt, test CMake files, gtest sources, docs,
READMEs, scripts) into tests/cli/miopen_driver_harvest.txt, one line each:

    <source path>\t<MIOpenDriver line>

How a line is found and completed (each rule is how that source writes a driver call):
  - a word ending in MIOpenDriver (./bin/MIOpenDriver, $<TARGET_FILE:MIOpenDriver>,
    $MIOpenDriver_path, MIOpenDriver.exe) starts it; MIOPEN_ENABLE_LOGGING_CMD log lines keep their
    "MIOpen(HIP): Command [LogCmd...]" prefix (hiprim driver accepts them as pasted);
  - backslash continuations are joined; a CMake COMMAND whose line ends right after the mode
    variable continues on the following lines up to ')' or the next COMMAND;
  - CMake's mode variables are expanded to every value test/CMakeLists.txt gives them
    (MIOPENDRIVER_MODE_CONV: conv convfp16 convbfp16 convint8; _BN: bnorm bnormfp16; _POOL: pool
    poolfp16; _GEMM: gemm gemmfp16), and gtest's `modeXArg + " ..."` strings to the basearg values
    of test/gtest/miopendriver_common.hpp;
  - a trailing ')' of CMake, quotes and backticks of docs, '#' comments are dropped;
  - a line that still holds a shell or CMake variable (${cmd}, ${bs}) is not a concrete line and is
    left out (counted on stderr).
Usage: harvest_miopen_driver_lines.py GIT_DIR > tests/cli/miopen_driver_harvest.txt
"""
import re
import subprocess
import sys

GIT = sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror/ROCm+MIOpen/repo"
TEXT = re.compile(r"\.(txt|md|rst|sh|py|cmake|cpp|hpp|yml|yaml|groovy|in)$|CMakeLists\.txt$|Jenkinsfile$")
MODES = {
    "MIOPENDRIVER_MODE_CONV": ["conv", "convfp16", "convbfp16", "convint8"],
    "MIOPENDRIVER_MODE_BN": ["bnorm", "bnormfp16"],
    "MIOPENDRIVER_MODE_POOL": ["pool", "poolfp16"],
    "MIOPENDRIVER_MODE_GEMM": ["gemm", "gemmfp16"],
}
GTEST_ARGS = {"modeConvolutionArg": MODES["MIOPENDRIVER_MODE_CONV"][:3], "modePoolingArg": MODES["MIOPENDRIVER_MODE_POOL"],
              "modeGemmArg": MODES["MIOPENDRIVER_MODE_GEMM"], "modeBatchNormArg": MODES["MIOPENDRIVER_MODE_BN"]}
DRIVER_WORD = re.compile(r"(\S*MIOpenDriver(?:\.exe|>|_path)?)\s+")
LOG = re.compile(r"(MIOpen\([A-Za-z]+\):\s*Command\s*\[\w+\]\s*)(\S*MIOpenDriver(?:\.exe)?)\s+(.*)")


def blobs():
    out = subprocess.run(["git", "--git-dir", GIT, "rev-list", "--all", "--objects", "--missing=allow-any"],
                         capture_output=True, text=True, errors="replace").stdout
    for line in out.splitlines():
        parts = line.split(" ", 1)
        if len(parts) == 2 and TEXT.search(parts[1]) and not parts[1].startswith("src/kernels/"):
            yield parts[0], parts[1]


def read_blobs(items):
    p = subprocess.Popen(["git", "--git-dir", GIT, "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    for sha, path in items:
        p.stdin.write((sha + "\n").encode())
        p.stdin.flush()
        header = p.stdout.readline().decode().split()
        if len(header) < 3 or header[1] == "missing":
            continue
        data = p.stdout.read(int(header[2]))
        p.stdout.read(1)
        yield path, data.decode("utf-8", "replace")


def joined_lines(text):
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        while line.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line.rstrip()[:-1] + " " + lines[i].strip()
        # CMake: "$<TARGET_FILE:MIOpenDriver> ${MIOPENDRIVER_MODE_CONV}" and the flags below it.
        if re.search(r"MIOpenDriver>?\s+\$\{?MIOPENDRIVER_MODE_\w+\}?\s*$", line):
            while i + 1 < len(lines) and not re.match(r"\s*(COMMAND|\))", lines[i + 1]) and lines[i + 1].strip():
                i += 1
                line += " " + lines[i].strip()
                if lines[i].rstrip().endswith(")"):
                    break
        yield line
        i += 1


# MIOpenDriver's commands (driver/driver.hpp ParseBaseArg over the history, the loggers' names).
COMMANDS = set("""conv convfp16 convbfp16 convint8 convfp8 convbfp8 CBAInfer CBAInferfp16 pool poolfp16 lrn lrnfp16 activ activfp16
softmax softmaxfp16 bnorm bnormfp16 bnormfp16fp32 bnormbfp16fp32 bnormbfp16 rnn rnnfp16 rnn_seq rnn_seqfp16 gemm gemmfp16 ctc
dropout dropoutfp16 tensorop tensoropfp16 reduce reducefp16 reducefp64 reducefp sum sumfp16 sumbfp16""".split())


def clean(rest):
    rest = rest.split('"')[0].split(" #")[0]
    rest = re.sub(r"[`\"']+\s*$", "", rest.strip())
    rest = re.sub(r"\)+\s*$", "", rest).strip()
    rest = re.sub(r"\s+", " ", rest)
    return rest


def expand(line):
    m = re.search(r"\$\{?(MIOPENDRIVER_MODE_\w+)\}?", line)
    if not m:
        return [line]
    out = []
    for v in MODES.get(m.group(1), []):
        out += expand(line[:m.start()] + v + line[m.end():])
    return out


def main():
    found = {}
    skipped_vars = 0
    for path, text in read_blobs(blobs()):
        if "MIOpenDriver" not in text and "Arg + \"" not in text:
            continue
        for line in joined_lines(text):
            g = re.search(r"\{?\s*(mode\w+Arg)\s*\+\s*\"([^\"]*)\"", line)
            if g and g.group(1) in GTEST_ARGS:
                for base in GTEST_ARGS[g.group(1)]:
                    found.setdefault("MIOpenDriver " + base + " " + clean(g.group(2)), path)
                continue
            lm = LOG.search(line)
            if lm:
                found.setdefault(clean(lm.group(1) + "./bin/MIOpenDriver " + lm.group(3)), path)
                continue
            m = DRIVER_WORD.search(line)
            if not m:
                continue
            rest = clean(line[m.end():])
            if not rest or not re.match(r"(\$\{?MIOPENDRIVER_MODE_\w+\}?|[A-Za-z][A-Za-z0-9_]*|\$\{?\w+\}?)(\s|$)", rest):
                continue
            words = rest.split()
            first = words[0]
            # A command word followed by a flag (or alone when it is a command): not prose or code.
            if not first.startswith("$") and not (first in COMMANDS or (len(words) > 1 and words[1].startswith("-"))):
                continue
            if first.isupper() and not first.startswith("$"):
                continue  # CMake keywords (target_compile_options(MIOpenDriver PRIVATE ...))
            for e in expand("MIOpenDriver " + rest):
                if re.search(r"\$\{|\$[A-Za-z_]|<[A-Za-z_]+>|\.\.\.", e):
                    skipped_vars += 1
                    continue
                found.setdefault(e, path)
    for line, path in sorted(found.items(), key=lambda kv: (kv[1], kv[0])):
        print(path + "\t" + line)
    print("harvested %d distinct lines; left out %d with unexpanded variables or placeholders" % (len(found), skipped_vars), file=sys.stderr)


if __name__ == "__main__":
    main()
