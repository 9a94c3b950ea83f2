#!/usr/bin/env python3
"""Extracts every MIOpenDriver command's flag table (AddCmdLineArgs: long name, short letter,
default, convert2uppercase) from a git directory of ROCm/MIOpen into
tests/cli/miopen_driver_flags.tsv, which tests/cli/test_miopen_driver.cpp compares with the
front end's tables (cli/miopen/*.cpp). The pre-2022 pool table comes from the parent of #1313.
Usage: extract_miopen_driver_flags.py GIT_DIR [COMMIT] > tests/cli/miopen_driver_flags.tsv
"""
import re
import subprocess
import sys

GIT = sys.argv[1] if len(sys.argv) > 1 else "/work/.mirror/ROCm+MIOpen/repo"
REV = sys.argv[2] if len(sys.argv) > 2 else "HEAD"
FILES = [("conv", REV, "driver/conv_driver.hpp"), ("bnorm", REV, "driver/bn_driver.hpp"), ("pool", REV, "driver/pool_driver.hpp"),
         ("pool_legacy", "622dd7181^", "driver/pool_driver.hpp"), ("softmax", REV, "driver/softmax_driver.hpp"),
         ("activ", REV, "driver/activ_driver.hpp"), ("lrn", REV, "driver/lrn_driver.hpp"), ("tensorop", REV, "driver/tensorop_driver.hpp"),
         ("reduce", REV, "driver/reduce_driver.hpp"), ("dropout", REV, "driver/dropout_driver.hpp"),
         ("CBAInfer", REV, "driver/CBAInferFusion_driver.hpp"), ("ctc", REV, "driver/ctc_driver.hpp"),
         ("rnn", REV, "driver/rnn_driver.hpp")]

print("# family\tlong\tshort\tdefault\tuppercase   (extracted from ROCm/MIOpen %s by scripts/extract_miopen_driver_flags.py)" %
      subprocess.run(["git", "--git-dir", GIT, "rev-parse", REV], capture_output=True, text=True).stdout.strip())
for fam, rev, path in FILES:
    src = subprocess.run(["git", "--git-dir", GIT, "show", rev + ":" + path], capture_output=True, text=True).stdout
    body = re.search(r"::AddCmdLineArgs\(\)\s*\{(.*?)\n\}", src, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)  # block comments: flags MIOpen commented out
    body = re.sub(r"//[^\n]*", "", body)
    for m in re.finditer(r"(AddInputFlag|AddTensorFlag)\((.*?)\);", body, re.S):
        toks = []
        for t in re.finditer(r"(\"(?:[^\"\\]|\\.)*\"(?:\s*\"(?:[^\"\\]|\\.)*\")*)|('.')|\b(true|false)\b", m.group(2)):
            if t.group(1):
                toks.append("".join(re.findall(r"\"((?:[^\"\\]|\\.)*)\"", t.group(1))))
            elif t.group(2):
                toks.append(t.group(2)[1])
            else:
                toks.append(t.group(3))
        up = toks[5] if m.group(1) == "AddInputFlag" and len(toks) > 5 else "false"
        print("\t".join([fam, toks[0], toks[1], toks[2], up]))
