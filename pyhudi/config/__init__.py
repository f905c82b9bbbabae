"""Settings: the options pyhudi honours (`options`), each defined once with Apache Hudi's key, its
default and parser; the catalogue of every Apache Hudi 1.x key (`hudi_keys`); and what pyhudi
does with a key it does not honour (`recognise`)."""
from pyhudi.config.options import REGISTRY, Option, honoured
from pyhudi.config.parsers import OptionError
from pyhudi.config.recognise import HONOURED, UNKNOWN, UNSUPPORTED, WARN, check, classify

__all__ = ["HONOURED", "REGISTRY", "UNKNOWN", "UNSUPPORTED", "WARN", "Option", "OptionError", "check", "classify",
           "honoured"]
