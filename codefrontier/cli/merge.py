"""`merge`: θ_α = α·θ_high + (1−α)·θ_low, or any affine combination of checkpoints."""

from __future__ import annotations

import argparse


def _merge(args: argparse.Namespace) -> int:
    from codefrontier.merge import merge_alpha, merge_checkpoints, write_merge_record

    if args.parents:
        if args.alpha is not None:
            raise ValueError("--alpha goes with --low/--high; the general form takes --weights")
        parents, weights = list(args.parents), list(args.weights or [])
        if args.base:  # base + Σ w_i (θ_i − base): the base takes weight 1 − Σ w_i
            parents, weights = [args.base, *parents], [1.0 - sum(weights), *weights]
        out = merge_checkpoints(parents, weights, args.out, force=args.force,
                                workers=args.workers)
        print(f"merged {len(parents)} checkpoints with weights {weights} -> {out}")
    else:
        if not (args.low and args.high and args.alpha is not None):
            raise ValueError("give --low, --high and --alpha, or --parents with --weights")
        out = merge_alpha(args.low, args.high, args.alpha, args.out, force=args.force,
                          workers=args.workers)
        print(f"merged {args.low} and {args.high} at α = {args.alpha} -> {out}")
    if args.record:
        print(f"record -> {write_merge_record(out, args.record)}")
    return 0


def register(commands) -> None:
    merge = commands.add_parser(
        "merge", help="θ_α = α·θ_high + (1−α)·θ_low, or any affine combination of checkpoints",
        description="Streams sharded safetensors tensor by tensor, computes in float32, writes a "
                    "save_pretrained folder with provenance.json. α outside [0, 1] extrapolates.")
    merge.add_argument("--low", help="θ_low (weight 1 − α)")
    merge.add_argument("--high", help="θ_high (weight α)")
    merge.add_argument("--alpha", type=float,
                       help="any finite real number (provenance.json records it)")
    merge.add_argument("--parents", nargs="+", help="general form: checkpoints to combine")
    merge.add_argument("--weights", nargs="+", type=float,
                       help="one per parent, summing to 1 (or, with --base, any task-vector weights)")
    merge.add_argument("--base", help="task-vector form: base + Σ w_i (θ_i − base)")
    merge.add_argument("--out", required=True, help="output folder")
    merge.add_argument("--force", action="store_true", help="overwrite an existing output")
    merge.add_argument("--record", metavar="FILE",
                       help="also write the merge's record (its provenance and the output's "
                            "content hash) to FILE, which outlives the folder")
    merge.add_argument("--workers", type=int, metavar="N",
                       help="threads that merge pieces at once; the weights are the same for "
                            "any number (default: one per core this process may use, up to "
                            "merge.pipeline.MAX_WORKERS)")
    merge.set_defaults(handler=_merge)
