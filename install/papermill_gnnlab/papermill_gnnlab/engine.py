"""The papermill engine entry point of papermill_gnnlab.

papermill loads its "papermill.engine" entry points when it starts, which
imports this module and with it the package: that registers GoTranslator.
GnnlabEngine itself is papermill's default (nbclient) engine; naming it
with ``--engine gnnlab`` changes nothing.
"""

from papermill.engines import NBClientEngine

import papermill_gnnlab  # noqa: F401  (registers the Go translator)


class GnnlabEngine(NBClientEngine):
    """papermill's nbclient engine, under the name gnnlab."""
