#!/usr/bin/env python3
"""Time the layers of a layerbench results file through PyTorch, and print the comparison.

  torch_layers.py measure RESULTS.json -o TORCH.json [--max-time-per-point S] [--warmup N]
  torch_layers.py table RESULTS.json [--torch TORCH.json] [-o TABLE.txt]
  torch_layers.py measure-cpu RESULTS.json -o TORCH.json [--rounds 3] [--threads 1]
  torch_layers.py cpu-table RESULTS.json... [--torch TORCH.json...] [-o TABLE.txt]

measure runs every GPU point that layerbench measured ("ok") with the same shape, pass, precision,
layout and cache mode: torch.backends.cudnn.benchmark on, F.conv2d / aten.convolution_backward in
channels_last for NHWC, torch.mm / torch.bmm / torch._scaled_mm for GEMMs, TF32 allowed only for
tf32, no reduced-precision reductions for fp16/bf16. Each run is timed with CUDA events after
warm-up (the first call is cuDNN's own autotuning); cold points zero an L2-flush buffer (twice the
L2, as layerbench does) before each start event. As in layerbench, the stream is held before each
start event (torch.cuda._sleep, for 4x the host's last enqueue time) so that the events time the
GPU's work and not Python's dispatch latency; a run whose enqueue outlasted its hold is measured
again. The median is reported, and beside it the CUDA kernels one more profiled call ran
(torch_kernels: PyTorch's choice of cuDNN engine or GEMM kernel; on the CPU "not available") and,
for a max pool, the call timed (torch_call: the forward without indices, as layerbench's).

table prints one row per GPU point: layer, pass, batch, precision, layerbench's median, TFLOP/s and
fraction of the device's peak, PyTorch's median, their ratio, and layerbench's validation error.

measure-cpu runs every FP32 and BF16 CPU point layerbench measured ("ok", oneDNN's) warm, in
--threads threads (1 by default): convolutions (F.conv2d, aten.convolution_backward), GEMMs
(torch.mm / torch.bmm) and every memory-bound kind through its functional op forward (F.batch_norm
in eval, F.layer_norm, torch.relu, F.gelu, torch.add, F.max_pool2d, F.avg_pool2d, torch.softmax;
batch norm's fwd_training is F.batch_norm in training, with no running statistics) and, for
bwd_data, the aten backward function torch.autograd calls for it (batch and layer norm's training
backward, threshold_backward, gelu_backward, the pools' and softmax's backward; an add's
backward is the same add). Images (N, C, H, W) are timed in both of PyTorch's layouts, NCHW and
channels_last, and the faster kept. Every point and layout is timed once per round, the rounds
one after another (--rounds, 3 by default), and the best median kept. Both measuring commands set
THP_MEM_ALLOC_ENABLE=1 unless it is set: PyTorch's large CPU tensors then lie on huge pages, as
layerbench's operands do.

cpu-table takes layerbench files from several rounds (run layerbench and measure-cpu in turn, so
that a busy spell falls on both) and prints, per CPU point, the best median of each side, the
layout and implementation oneDNN ran, and the speedup PyTorch time / layerbench time; then the
geometric means per model, batch, precision and pass, over every op and over the memory-bound
ones. PyTorch is needed for measure and measure-cpu only.
Bad input (missing or malformed files, flags, an output that exists: --force replaces a file)
exits with code 2 and one line naming the file or flag; so do measure without PyTorch or a GPU
and measure-cpu without PyTorch.
"""
import sys

import project_env

project_env.require()
from layerbench_report import checked_json
from layerbench_report.command_line import BadInput, Parser, number, pass_bytes_through, path_text

from torch_compare.cpu_measure import measure_cpu
from torch_compare.gpu_measure import measure
from torch_compare.tables import cpu_table, table


def measure_parser(sub, name, help, max_time_s, first_call):
    """A measuring subcommand: a results file in, PyTorch's timings out."""
    p = sub.add_parser(name, help=help)
    p.add_argument("results", type=path_text, help="layerbench results file (JSON)")
    p.add_argument("-o", "--output", required=True, type=path_text,
                   help="where to write the PyTorch timings (JSON)")
    p.add_argument("--max-time-per-point", type=number(float, above=0), default=max_time_s,
                   help=f"seconds of timed runs per point after the first 5 (default {max_time_s})")
    p.add_argument("--warmup", type=number(int, minimum=1), default=3,
                   help=f"untimed runs first, at least 1: the first call is {first_call} "
                        "(default 3)")
    return p


def main(argv=None):
    pass_bytes_through()
    parser = Parser(prog="torch_layers.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = measure_parser(sub, "measure", "time the results file's GPU points through PyTorch",
                       0.25, "cuDNN's autotuning")
    t = sub.add_parser("table", help="print layerbench against PyTorch, one row per GPU point")
    t.add_argument("results", type=path_text, help="layerbench results file (JSON)")
    t.add_argument("--torch", type=path_text, help="PyTorch timings written by `measure`")
    t.add_argument("-o", "--output", type=path_text,
                   help="write the table here instead of standard output")
    mc = measure_parser(sub, "measure-cpu", "time the results file's CPU points through PyTorch",
                        0.1, "oneDNN's own set-up")
    mc.add_argument("--rounds", type=number(int, minimum=1), default=3,
                    help="rounds over every point and layout, the best kept (default 3)")
    mc.add_argument("--threads", type=number(int, minimum=1), default=1,
                    help="PyTorch's threads (default 1)")
    ct = sub.add_parser("cpu-table", help="print layerbench against PyTorch, one row per CPU "
                        "point, the best of several rounds' files")
    ct.add_argument("results", nargs="+", type=path_text,
                    help="layerbench results files (JSON), one per round")
    ct.add_argument("--torch", nargs="+", type=path_text,
                    help="PyTorch timings written by `measure-cpu`")
    ct.add_argument("-o", "--output", type=path_text,
                    help="write the table here instead of standard output")
    for sub_parser in (m, t, mc, ct):
        sub_parser.add_argument("--force", action="store_true",
                                help="replace the -o file if it exists (a regular file only)")
    commands = {"measure": measure, "table": table, "measure-cpu": measure_cpu,
                "cpu-table": cpu_table}
    words = sys.argv[1:] if argv is None else list(argv)
    first = words[0] if words else None
    if first not in (*commands, "-h", "--help"):
        # argparse would say "the following arguments are required: command" for a flag, or take
        # the flag's value for the command ("invalid choice: 't.json'").
        found = "nothing" if first is None else repr(first)
        print(f"torch_layers.py: the first argument is the command, one of "
              f"{', '.join(commands)} (found {found}; --help says what each does)",
              file=sys.stderr)
        return 2
    args = parser.parse_args(words)
    try:
        return commands[args.command](args)
    except (BadInput, checked_json.BadResultsFile) as e:
        print(f"torch_layers.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
