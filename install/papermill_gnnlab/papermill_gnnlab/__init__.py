"""papermill parameters for gnnlab's Go kernel.

Importing this package registers GoTranslator for the language "go" (the
language_info.name of the gnnlab kernel), so that ``papermill -p name value``
writes its injected-parameters cell in Go::

    // Parameters
    epochs := 10
    lr := 0.5
    name := "cora"

Each parameter is a short variable declaration, which a gnnlab session
accepts for a name the parameters cell declared already (the new
declaration replaces the old one, type included). papermill gives the
translator the values without the parameters cell, so the type comes from
the value: pass ``-p lr 1.0`` rather than ``-p lr 1`` for a float64.
``gnnlab run -p`` reads the parameters cell and keeps its types.
"""

import json
import math

from papermill.translators import Translator, papermill_translators

__all__ = ["GoTranslator"]


class GoTranslator(Translator):
    """Writes papermill parameters as Go declarations."""

    @classmethod
    def translate_escaped_str(cls, str_val):
        # A JSON string is a Go interpreted string literal (\uXXXX included).
        return json.dumps(str(str_val))

    @classmethod
    def translate_none(cls, val):
        return "nil"

    @classmethod
    def translate_bool(cls, val):
        return "true" if val else "false"

    @classmethod
    def translate_int(cls, val):
        return str(val)

    @classmethod
    def translate_float(cls, val):
        if math.isnan(val):
            return "math.NaN()"
        if math.isinf(val):
            return "math.Inf(1)" if val > 0 else "math.Inf(-1)"
        s = repr(val)
        # 1.0 and 1e+20 are float constants in Go, so := infers float64.
        if not any(c in s for c in ".eE"):
            s += ".0"
        return s

    @classmethod
    def go_type(cls, values):
        """The Go element type for a list's or a dict's values."""
        kinds = set()
        for v in values:
            if isinstance(v, bool):
                kinds.add("bool")
            elif isinstance(v, int):
                kinds.add("int")
            elif isinstance(v, float):
                kinds.add("float64")
            elif isinstance(v, str):
                kinds.add("string")
            else:
                kinds.add("any")
        if kinds == {"int", "float64"}:
            return "float64"
        if len(kinds) == 1:
            return kinds.pop()
        return "any"

    @classmethod
    def translate_elem(cls, val, typ):
        if typ == "float64" and isinstance(val, int) and not isinstance(val, bool):
            return cls.translate_float(float(val))
        return cls.translate(val)

    @classmethod
    def translate_list(cls, val):
        typ = cls.go_type(val)
        return "[]%s{%s}" % (typ, ", ".join(cls.translate_elem(v, typ) for v in val))

    @classmethod
    def translate_dict(cls, val):
        typ = cls.go_type(val.values())
        items = ", ".join("%s: %s" % (cls.translate_str(k), cls.translate_elem(v, typ)) for k, v in val.items())
        return "map[string]%s{%s}" % (typ, items)

    @classmethod
    def comment(cls, cmt_str):
        return ("// " + cmt_str).strip()

    @classmethod
    def assign(cls, name, str_val):
        if str_val == "nil":
            return "var %s any" % name
        return "%s := %s" % (name, str_val)

    @classmethod
    def codify(cls, parameters, comment="Parameters"):
        content = super().codify(parameters, comment)
        if "math." in content:
            content = 'import "math"\n' + content
        return content


papermill_translators.register("go", GoTranslator)
