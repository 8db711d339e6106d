"""`archive.ibi`, the import path of the IBI codec before the code moved into packages.

The codec lives in archive/identifiers/ibi.py; this name is kept for code outside the project
that imports it. It is that very module, not a copy, so whatever is done to one is done to both.
"""
import sys

from archive.identifiers import ibi

sys.modules[__name__] = ibi
