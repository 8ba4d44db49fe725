"""bfloat16 linear layers whose weights oneDNN reorders once, not at every call.

Eager PyTorch hands oneDNN a plain bfloat16 weight at each call, and oneDNN reorders it into its
blocked layout every time: for MiniLM on one core about a fifth of a patient's case (24.8 -> 19.8 ms)
and of the index build (11.2 -> 8.6 s for 600 texts on two cores), for the same numbers (cosine
0.9999998 to the plain layers). `torch.jit.freeze` and `torch.compile(freezing)` do this too, but
the first is deprecated in torch 2.13 and the second needs a C++ compiler at run time and a minute
of compiling. These are the two oneDNN ops compiled graphs call; they are private to torch (hence
the exact torch pin), so every layer is checked against the plain one and kept plain where an op is
missing or disagrees.
"""

from __future__ import annotations

import torch

_CHECK_ROWS = 4
_TOLERANCE = 2e-2  # bfloat16 keeps ~3 significant digits; a wrong layout is off by far more


def _ops_available() -> bool:
    return torch.backends.mkldnn.is_available() and all(
        hasattr(torch.ops.mkldnn, op) for op in ("_reorder_linear_weight", "_linear_pointwise"))


class PrepackedLinear(torch.nn.Module):
    """`torch.nn.Linear` in bfloat16 with the weight in oneDNN's layout; takes any float input
    (under autocast the layer norms hand it float32), returns bfloat16 as autocast's linear does."""

    def __init__(self, linear: torch.nn.Linear) -> None:
        super().__init__()
        self.in_features, self.out_features = linear.in_features, linear.out_features
        self.packed_weight = torch.ops.mkldnn._reorder_linear_weight(linear.weight.detach().to(torch.bfloat16))
        self.bias_bf16 = None if linear.bias is None else linear.bias.detach().to(torch.bfloat16)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        return torch.ops.mkldnn._linear_pointwise(inputs.to(torch.bfloat16), self.packed_weight, self.bias_bf16,
                                                  "none", [], "")


def _agrees(plain: torch.nn.Linear, packed: PrepackedLinear) -> bool:
    probe = torch.randn(_CHECK_ROWS, plain.in_features, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        expected = torch.nn.functional.linear(probe.bfloat16(), plain.weight.bfloat16(),
                                              None if plain.bias is None else plain.bias.bfloat16()).float()
        got = packed(probe).float()
    return torch.allclose(got, expected, rtol=_TOLERANCE, atol=_TOLERANCE * float(expected.abs().max()))


def prepack_linears(model: torch.nn.Module) -> int:
    """Replaces each `torch.nn.Linear` inside `model` that oneDNN packs faithfully; returns how many."""
    if not _ops_available():
        return 0
    replaced = 0
    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            if type(child) is torch.nn.Linear:
                try:
                    packed = PrepackedLinear(child)
                except RuntimeError:  # a shape or build oneDNN does not take
                    continue
                if _agrees(child, packed):
                    setattr(parent, name, packed)
                    replaced += 1
    return replaced
