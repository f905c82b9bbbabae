"""Settings: the options pyhudi honours (`options`), each defined once with Apache Hudi's key, its
default and parser; the catalogue of every Apache Hudi 1.x key
(`HUDI_KEYS`, read from the connector's hudi-option-keys.tsv); and what pyhudi
does with a key it does not honour (`recognise`)."""
from pyhudi.config.options import REGISTRY, Option, honoured
from pyhudi.config.parsers import OptionError
from pyhudi.config.recognise import HONOURED, UNKNOWN, UNSUPPORTED, WARN, check, classify
from pyhudi.config.recognise import KEYS as HUDI_KEYS

__all__ = ["HONOURED", "HUDI_KEYS", "REGISTRY", "UNKNOWN", "UNSUPPORTED", "WARN", "Option", "OptionError", "check",
           "classify", "honoured"]
