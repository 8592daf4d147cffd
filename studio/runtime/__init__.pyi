"""Public names of `studio.runtime`, for the type checker and for the lazy loader.

`__init__.py` hands this file to `lazy_loader.attach_stub`: each name below is imported from
its module on first use, and this one list is what both the type checker and the runtime read.
"""

from .announce import RunFile as RunFile
from .announce import find_table as find_table
from .announce import read_run_file as read_run_file
from .announce import run_dir as run_dir
from .devices import DealerShoe as DealerShoe
from .devices import ShoeDevice as ShoeDevice
from .keys import TableKeys as TableKeys
from .keys import ensure_keys as ensure_keys
from .parts import EventListener as EventListener
from .parts import TableParts as TableParts
from .parts import build_parts as build_parts
from .source import JournalSource as JournalSource
from .table import TableRuntime as TableRuntime
from .table import run_table as run_table
