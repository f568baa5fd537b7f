from ._quantir import Hit as Hit, Index as Index, QuantirError as QuantirError, Verifier as Verifier, __version__ as __version__, compare as compare, evaluate as evaluate, fuse as fuse, read_qrels as read_qrels, read_run as read_run, score as score
from ._convert import from_dataframe as from_dataframe, to_dataframe as to_dataframe, to_ranx_qrels as to_ranx_qrels, to_ranx_run as to_ranx_run
