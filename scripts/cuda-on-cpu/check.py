#!/usr/bin/python3
# bench/flashinfer's CUDA baselines checked on a machine without a GPU: each baseline.cu's device code
# runs on the CPU through cuda_shim.h (one block at a time, one std::thread per CUDA thread, barriers
# for __syncthreads and the warp shuffles, bfloat16 as a bit-level struct) against its header
# as accelopt generates it, and the outputs are compared with reference.py's (PyTorch; gemm's against
# a float64 product, stricter than its float32 one) at the tasks' default tolerances.
# Attention tasks get valid page tables, wider queries, an empty sequence and queries that see no
# key. The MoE runs at reduced sizes (its const axes overridden in the header and in a copy of
# reference.py whose asserts pin DeepSeek-V3's), float8 values drawn as its definition says,
# held as float32 for the reference (PyTorch 1.13 has no float8) and as E4M3FN bits for the kernel. A check of the kernels' logic, not of CUDA: no memory model, no timing, no nvcc. Minutes.
#
#   scripts/cuda-on-cpu/check.py [BUILD_DIR [TASK ...]]     (BUILD_DIR: where accelopt_task is built)
import json, math, os, random, re, shutil, subprocess, sys, tempfile
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
W = os.path.dirname(os.path.dirname(HERE))
B = W + '/bench/flashinfer'
BUILD = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else W + '/build'
WORK = tempfile.mkdtemp(prefix='accelopt-cuda-on-cpu-')
CT = {'bfloat16': '__nv_bfloat16', 'float16': '__half', 'int32': 'int32_t', 'float32': 'float', 'float8_e4m3fn': '__nv_fp8_e4m3'}
TD = {'bfloat16': torch.bfloat16, 'float16': torch.float16, 'int32': torch.int32, 'float32': torch.float32}
WIDTH = {'bfloat16': 2, 'float16': 2, 'int32': 4, 'float32': 4, 'float8_e4m3fn': 1}
# Two scale blocks along H and I, 8 groups of 4 experts, 20 tokens: a few hundred blocks of 256
# std::threads a case.
MOE_OVERRIDES = {'num_experts': 32, 'num_local_experts': 4, 'hidden_size': 256, 'intermediate_size': 256,
                 'gemm1_out_size': 512, 'num_hidden_blocks': 2, 'num_intermediate_blocks': 2,
                 'num_gemm1_out_blocks': 4, 'seq_len': 20}

# E4M3FN's 127 finite non-negative values, by bit pattern (0x7F is NaN): exponent bias 7, subnormals
# mantissa * 2^-9, 448 the largest.
FP8_VALUES = torch.tensor([(m / 8) * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7)
                           for e in range(16) for m in range(8)][:127], dtype=torch.float64)

def fp8_bits(t):
    """E4M3FN bits of float values: nearest value, ties to the even pattern, saturated at +-448."""
    x = t.to(torch.float64).reshape(-1)
    mag = x.abs().clamp(max=448.0)
    hi = torch.searchsorted(FP8_VALUES, mag).clamp(max=126)
    lo = (hi - 1).clamp(min=0)
    d_lo, d_hi = mag - FP8_VALUES[lo], FP8_VALUES[hi] - mag
    bits = torch.where((d_lo < d_hi) | ((d_lo == d_hi) & (lo % 2 == 0)), lo, hi)
    return (bits | (torch.signbit(x).to(torch.int64) * 128)).to(torch.uint8).reshape(t.shape)

def to_fp8_values(t):
    b = fp8_bits(t).to(torch.int64)
    v = FP8_VALUES[b & 127]
    return torch.where(b >= 128, -v, v).to(torch.float32)

def header(task, overrides):
    h = subprocess.check_output([WORK + '/gen_header', f'{B}/{task}', 'small'], text=True)
    for include in ('<cuda_bf16.h>', '<cuda_fp16.h>', '<cuda_fp8.h>'):
        h = h.replace('#include ' + include, '#include "cuda_shim.h"')
    for name, value in overrides.items():
        h, n = re.subn(rf'constexpr std::int64_t {name} = \d+;', f'constexpr std::int64_t {name} = {value};', h)
        assert n == 1, name
    return h

def build(task, overrides):
    d = json.load(open(f'{B}/{task}/definition.json'))
    out = f'{WORK}/{task}'
    os.makedirs(out, exist_ok=True)
    open(f'{out}/accelopt_task.h', 'w').write(header(task, overrides))
    src = open(f'{B}/{task}/baseline.cu').read()
    src, n = re.subn(r'(\w+)<<<(.*?),\s*([^,]*?)>>>\((.*?)\);', r'launch(dim3(\2), dim3(\3), [&] { \1(\4); });', src, flags=re.S)
    assert n >= 1
    open(f'{out}/kernel.cpp', 'w').write('#include "cuda_shim.h"\n' + src)
    names = list(d['inputs']) + list(d['outputs'])
    dtypes = [t['dtype'] for t in list(d['inputs'].values()) + list(d['outputs'].values())]
    drv = '#include <cstdio>\n#include <cstdlib>\n#include <vector>\n#include "accelopt_task.h"\nint main(int argc, char** argv) {\n'
    drv += f'  std::vector<std::vector<char>> b({len(names)});\n'
    drv += '  for (int i = 0; i < %d; ++i) { FILE* f = std::fopen(argv[1 + 2 * i], "rb"); b[i].resize(std::atoll(argv[2 + 2 * i]) + 8); if (f) { std::fread(b[i].data(), 1, b[i].size(), f); std::fclose(f); } }\n' % len(names)
    args = ', '.join(f'({CT[t]}*)b[{i}].data()' for i, t in enumerate(dtypes))
    drv += f'  kernel({args});\n'
    ni = len(d['inputs'])
    drv += '  for (int i = %d; i < %d; ++i) { FILE* f = std::fopen(argv[1 + 2 * i], "wb"); std::fwrite(b[i].data(), 1, std::atoll(argv[2 + 2 * i]), f); std::fclose(f); }\n}\n' % (ni, len(names))
    open(f'{out}/driver.cpp', 'w').write(drv)
    subprocess.check_call(['g++', '-std=c++20', '-O1', '-pthread', '-I', out, '-I', HERE, '-o', f'{out}/run', f'{out}/kernel.cpp', f'{out}/driver.cpp'])
    return d, out

def offsets(n, total, min_step, lower=None, rng=None):
    least = [min_step] * (n - 1)
    if lower is not None:
        least = [max(least[i], lower[i + 1] - lower[i]) for i in range(n - 1)]
    slack = total - sum(least)
    assert slack >= 0
    cuts = sorted(rng.randint(0, slack) for _ in range(n - 2)) + [slack]
    out, at, prev = [0], 0, 0
    for i in range(n - 1):
        at += least[i] + cuts[i] - prev
        prev = cuts[i]
        out.append(at)
    return out

def run(task, axes, inputs, d, out):
    files = []
    ts = list(d['inputs'].items()) + list(d['outputs'].items())
    args = []
    for name, spec in ts:
        shape = [axes[a] for a in spec['shape']]
        nbytes = math.prod(shape) * WIDTH[spec['dtype']]
        path = f'{out}/{name}.bin'
        if name in inputs:
            t = inputs[name].contiguous().reshape(-1)
            if spec['dtype'] == 'float8_e4m3fn':
                t = fp8_bits(t)
            open(path, 'wb').write(t.view(torch.uint8).numpy().tobytes() if t.dtype != torch.bfloat16 else t.view(torch.int16).numpy().tobytes())
        args += [path, str(nbytes)]
    subprocess.check_call([f'{out}/run'] + args)
    result = {}
    for name, spec in d['outputs'].items():
        shape = [axes[a] for a in spec['shape']]
        raw = bytearray(open(f'{out}/{name}.bin', 'rb').read())
        if spec['dtype'] == 'bfloat16':
            t = torch.frombuffer(raw, dtype=torch.int16).view(torch.bfloat16)
        else:
            t = torch.frombuffer(raw, dtype=TD[spec['dtype']])
        result[name] = t.reshape(shape).to(torch.float64)
    return result

def compare(label, got, ref, atol, rtol, rel_l2):
    ref = ref.to(torch.float64)
    same_nonfinite = (~torch.isfinite(ref)) & ((got == ref) | (torch.isnan(got) & torch.isnan(ref)))
    finite = torch.isfinite(ref)
    bad_nonfinite = int(((~finite) & ~same_nonfinite).sum()) + int((finite & ~torch.isfinite(got)).sum())
    g, r = got[finite & torch.isfinite(got)], ref[finite & torch.isfinite(got)]
    err = (g - r).abs()
    outside = int((err > atol + rtol * r.abs()).sum())
    l2 = float(err.norm() / r.norm()) if r.norm() > 0 else float(err.norm())
    ok = bad_nonfinite == 0 and outside == 0 and l2 < rel_l2
    print(f'  {label}: {"OK" if ok else "FAIL"} rel_l2 {l2:.2e} max_abs {float(err.max()) if err.numel() else 0:.2e} (of max |ref| {float(r.abs().max()) if r.numel() else 0:.2e}) outside {outside} nonfinite_mismatch {bad_nonfinite}')
    return ok

def attention_case(task, d, axes, rng, edge, wide):
    gen = torch.Generator().manual_seed(rng.randint(0, 1 << 30))
    inp = {}
    n = axes['len_indptr']
    kv_total = axes.get('num_kv_indices', axes.get('total_kv'))
    if edge == 'short':
        inp['qo_indptr'] = torch.tensor([0, axes['total_q'] - 2, axes['total_q']], dtype=torch.int32)
        inp['kv_indptr'] = torch.tensor([0, 3, kv_total], dtype=torch.int32)
    elif edge == 'empty' and 'qo_indptr' in d['inputs']:
        inp['qo_indptr'] = torch.tensor([0, 2, axes['total_q']], dtype=torch.int32)
        inp['kv_indptr'] = torch.tensor([0, 0, kv_total], dtype=torch.int32)
    elif edge == 'empty':
        inp['kv_indptr'] = torch.tensor([0, 0, kv_total // 2, kv_total // 2, kv_total], dtype=torch.int32)
    elif 'qo_indptr' in d['inputs']:
        q = offsets(n, axes['total_q'], 0 if edge else 1, rng=rng)
        inp['qo_indptr'] = torch.tensor(q, dtype=torch.int32)
        kv_total = axes.get('num_kv_indices', axes.get('total_kv'))
        kv = offsets(n, kv_total, 0 if edge else 1, lower=None if edge else q, rng=rng)
        inp['kv_indptr'] = torch.tensor(kv, dtype=torch.int32)
    else:
        kv = offsets(n, axes['num_kv_indices'], 0 if edge else 1, rng=rng)
        inp['kv_indptr'] = torch.tensor(kv, dtype=torch.int32)
    if 'kv_indices' in d['inputs']:
        inp['kv_indices'] = torch.randint(0, axes['num_pages'], (axes['num_kv_indices'],), generator=gen, dtype=torch.int32)
    for name, spec in d['inputs'].items():
        if name in inp: continue
        shape = [axes[a] for a in spec['shape']]
        if name == 'sm_scale':
            inp[name] = torch.tensor(0.0884 if 'head_dim' in axes else 0.0417, dtype=torch.float32)
        else:
            scale = 4.0 if wide and name.startswith('q') else 1.0
            inp[name] = (torch.randn(shape, generator=gen) * scale).to(TD[spec['dtype']])
    return inp

def moe_case(d, axes, gen, offset, crowded):
    """The MoE's inputs drawn by its definition's distributions, local_expert_offset given; crowded:
    the local experts' logits raised by 4, so that every token routes to every local expert."""
    inp = {}
    for name, spec in d['inputs'].items():
        shape = [axes[a] for a in spec['shape']]
        dist = spec['distribution']
        if name == 'local_expert_offset':
            inp[name] = torch.tensor(offset, dtype=torch.int32)
        elif dist['kind'] == 'constant':
            inp[name] = torch.tensor(dist['value'], dtype=TD[spec['dtype']])
        elif dist['kind'] == 'normal':
            t = torch.randn(shape, generator=gen, dtype=torch.float64) * dist['std'] + dist['mean']
            inp[name] = to_fp8_values(t) if spec['dtype'] == 'float8_e4m3fn' else t.to(TD[spec['dtype']])
        else:
            assert dist['kind'] == 'uniform', name
            t = torch.rand(shape, generator=gen, dtype=torch.float64) * (dist['high'] - dist['low']) + dist['low']
            inp[name] = t.to(TD[spec['dtype']])
    if crowded:
        inp['routing_logits'][:, offset:offset + axes['num_local_experts']] += 4.0
    return inp

def moe_reference(task, axes):
    """reference.py with the reduced hidden and intermediate sizes and without its size asserts."""
    src = open(f'{B}/{task}/reference.py').read()
    for name, value in (('H', axes['hidden_size']), ('I', axes['intermediate_size'])):
        src, n = re.subn(rf'^    {name} = \d+$', f'    {name} = {value}', src, flags=re.M)
        assert n == 1, name
    src, n = re.subn(r'^    assert (H|I|E_global|E_local) == \d+.*$', '', src, flags=re.M)
    assert n == 4, 'the reference\'s size asserts'
    namespace = {}
    exec(compile(src, f'{B}/{task}/reference.py (sizes reduced)', 'exec'), namespace)
    return namespace['run']

def main():
    subprocess.check_call(['g++', '-std=c++20', '-O1', '-I', W + '/src', '-o', WORK + '/gen_header',
                           HERE + '/gen_header.cpp', BUILD + '/src/task/libaccelopt_task.a',
                           BUILD + '/src/common/libaccelopt_common.a', '-lfmt'])
    rng = random.Random(7)
    all_ok = True
    tasks = sys.argv[2:] or sorted(t for t in os.listdir(B) if os.path.exists(f'{B}/{t}/baseline.cu'))
    for task in tasks:
        # gemm's const N and K shrunk in its header (the kernel reads its shapes there): its real
        # 28672 x 4096 would be hours of std::threads. M = 3 leaves a partial tile.
        overrides = {'N': 64, 'K': 256, 'M': 3} if task.startswith('gemm') else MOE_OVERRIDES if task.startswith('moe') else {}
        d, out = build(task, overrides)
        axes = {a: (v['value'] if v['type'] == 'const' else d['workloads']['small']['axes'][a]) for a, v in d['axes'].items()}
        axes.update(overrides)
        sys.path.insert(0, f'{B}/{task}')
        import importlib.util
        spec = importlib.util.spec_from_file_location('ref_' + task, f'{B}/{task}/reference.py')
        ref = importlib.util.module_from_spec(spec); spec.loader.exec_module(ref)
        if task.startswith('moe'):
            ref.run = moe_reference(task, axes)
        print(task, axes)
        cases = [('plain', False, False)]
        if 'kv_indptr' in d['inputs']:
            cases = [('valid', False, False), ('wide q', False, True), ('empty sequence', 'empty', False)]
            if 'qo_indptr' in d['inputs']: cases.append(('queries that see no key', 'short', False))
        if task.startswith('moe'):  # local_expert_offset: a drawn window, the first, the last
            last = axes['num_experts'] - axes['num_local_experts']
            cases = [(f'local_expert_offset {o}', o, False) for o in (rng.randint(1, last - 1), 0, last)]
            crowded = rng.randint(0, last)
            cases.append((f'local_expert_offset {crowded}, every token to every local expert', crowded, True))
        for label, edge, wide in cases:
            if 'kv_indptr' in d['inputs']:
                inp = attention_case(task, d, axes, rng, edge, wide)
            elif task.startswith('moe'):
                inp = moe_case(d, axes, torch.Generator().manual_seed(rng.randint(0, 1 << 30)), edge, wide)
            else:
                gen = torch.Generator().manual_seed(rng.randint(0, 1 << 30))
                inp = {name: torch.randn([axes[a] for a in s['shape']], generator=gen).to(TD[s['dtype']]) for name, s in d['inputs'].items()}
            got = run(task, axes, inp, d, out)
            print('   indptrs', {k: v.tolist() for k, v in inp.items() if 'indptr' in k})
            if task.startswith('gemm'):
                want = {'C': (inp['A'].double() @ inp['B'].double().T).half()}
            else:
                r = ref.run(**{k: (v.item() if v.dim() == 0 else v) for k, v in inp.items()})
                if isinstance(r, dict): want = r
                elif isinstance(r, tuple): want = dict(zip(d['outputs'], r))
                else: want = {list(d['outputs'])[0]: r}
            print(f' case {label}')
            for name, spec in d['outputs'].items():
                if spec['dtype'] in ('bfloat16', 'float16'):
                    all_ok &= compare(name, got[name], want[name].to(torch.float64), 1e-2, 1e-2, 1e-2)
                else:
                    all_ok &= compare(name, got[name], want[name].to(torch.float64), 1e-5, 1e-3, 2e-5)
    print('ALL OK' if all_ok else 'SOME FAILED (files in ' + WORK + ')')
    if all_ok:
        shutil.rmtree(WORK)
    return 0 if all_ok else 1

sys.exit(main())
