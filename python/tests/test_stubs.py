"""The type stubs name every native function and method with the native parameter names."""

import ast
import inspect
from pathlib import Path

import quantir._quantir as native

STUBS = ast.parse((Path(quantir_path := native.__file__).parent / "_quantir.pyi").read_text())


def stub_params():
    out = {}
    for node in STUBS.body:
        if isinstance(node, ast.FunctionDef):
            out[node.name] = node
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    out[f"{node.name}.{item.name}"] = item
    return {name: [a.arg for a in f.args.args + f.args.kwonlyargs if a.arg not in ("self", "cls")] for name, f in out.items()}


def native_params():
    out = {}
    for name in ("evaluate", "fuse", "compare", "score", "read_qrels", "read_run"):
        out[name] = list(inspect.signature(getattr(native, name)).parameters)
    for cls, methods in ((native.Index, ("search", "run", "build")), (native.OpenSearchIndex, ("search", "run", "build")), (native.Verifier, ("load", "predict"))):
        for m in methods:
            params = [p for p in inspect.signature(getattr(cls, m)).parameters if p not in ("self", "cls", "$self", "$cls")]
            out[f"{cls.__name__}.{m}"] = params
    out["Index.__init__"] = [p for p in inspect.signature(native.Index).parameters]
    out["OpenSearchIndex.__init__"] = [p for p in inspect.signature(native.OpenSearchIndex).parameters]
    return out


def test_stubs_match_the_native_signatures():
    stubs, natives = stub_params(), native_params()
    for name, params in natives.items():
        assert name in stubs, f"{name} has no stub"
        assert stubs[name] == params, name
