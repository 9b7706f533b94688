#!/usr/bin/env python3
"""A stand-in evaluator for the command platform's tests: it speaks accelopt-evaluator/1 but runs
no kernel. For the silu task it computes the outputs itself (in float64, as the reference does);
the mode in argv[1] says how to answer."""
import base64
import json
import math
import struct
import sys


def silu_outputs(case):
    data = base64.b64decode(case["inputs"]["x"])
    xs = struct.unpack("<%df" % (len(data) // 4), data)
    return [x / (1.0 + math.exp(-x)) for x in xs]


def main():
    mode = sys.argv[1]
    request = json.load(sys.stdin)
    reply = {"protocol": "accelopt-evaluator/1", "status": "PASSED",
             "device": {"name": "stand-in"}, "compile_seconds": 0.5}
    if mode == "old-protocol":
        reply["protocol"] = "accelopt-evaluator/0"
    if mode == "exit":
        print("stand-in: cannot reach the device", file=sys.stderr)
        sys.exit(3)
    if mode == "not-json":
        print("hello")
        return
    if mode == "hang":
        import time
        time.sleep(60)
    if mode == "compile-error":
        reply.update(status="COMPILE_ERROR", message="the kernel does not compile",
                     log="kernel.cu(3): error: identifier \"foo\" is undefined")
        json.dump(reply, sys.stdout)
        return
    if mode == "echo-request":
        print("kernel=%s anchor=%s correctness=%s workload=%s seeds=%s" % (
            request["kernel"]["source"], request["anchor"]["name"], request["correctness"],
            request["workload"]["name"], [c["seed"] for c in request["cases"]]), file=sys.stderr)
        reply.update(status="RUNTIME_ERROR", message="echoed the request")
        json.dump(reply, sys.stdout)
        return
    if mode == "self-check":
        reply["correctness"] = {"seeds_checked": len(request["cases"]), "rel_l2_error": 1e-7}
    else:
        outputs = []
        for case in request["cases"]:
            values = silu_outputs(case)
            if mode == "wrong":
                values[0] += 1.0
            if mode == "checksums":
                total = sum(values)
                l2 = math.sqrt(sum(v * v for v in values))
                outputs.append({"seed": case["seed"], "checksums": {"out": {"sum": total, "l2": l2}}})
            elif mode == "short-values":
                packed = struct.pack("<%df" % (len(values) - 1), *values[1:])
                outputs.append({"seed": case["seed"],
                                "values": {"out": base64.b64encode(packed).decode()}})
            else:
                packed = struct.pack("<%df" % len(values), *values)
                outputs.append({"seed": case["seed"],
                                "values": {"out": base64.b64encode(packed).decode()}})
        reply["outputs"] = outputs
    if request["timing"] is not None:
        # Twice as fast as the anchor, with a little alternating noise; "too-fast" is impossibly so.
        pairs = request["timing"]["min_pairs"] + 10
        per_call = 1e-12 if mode == "too-fast" else 1e-3
        reply["timing"] = {
            "candidate_seconds": [per_call * (1 + 0.01 * (i % 3)) for i in range(pairs)],
            "anchor_seconds": [2 * per_call * (1 + 0.01 * (i % 2)) for i in range(pairs)],
            "candidate_calls_per_turn": 20, "anchor_calls_per_turn": 10, "kernel_seconds": 0.5}
    json.dump(reply, sys.stdout)


main()
