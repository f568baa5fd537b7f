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
    return {name: [a.arg for a in f.args.args + f.args.kwonlyargs + ([f.args.kwarg] if f.args.kwarg else []) if a.arg not in ("self", "cls")] for name, f in out.items()}


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


def typed_dict_keys(name):
    """The keys a TypedDict of the stubs declares, its bases' included."""
    classes = {node.name: node for node in STUBS.body if isinstance(node, ast.ClassDef)}
    node = classes[name]
    keys = [item.target.id for item in node.body if isinstance(item, ast.AnnAssign)]
    for base in node.bases:
        if isinstance(base, ast.Name) and base.id in classes:
            keys += typed_dict_keys(base.id)
    return keys


def test_the_settings_stubs_name_every_setting_and_no_other():
    # `plan` is run's own argument (a name or a callable); every other setting is a keyword.
    assert sorted(typed_dict_keys("RunSettings")) == sorted(k for k in native.RUN_DEFAULTS if k != "plan")
    assert native.RUN_DEFAULTS["depth"] == 100 and native.RUN_DEFAULTS["fusion"] == "combmax-norm" and native.SEARCH_DEFAULT_K == 10
