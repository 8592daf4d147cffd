"""Public names of `studio.bus`, for the type checker and for the lazy loader.

`__init__.py` hands this file to `lazy_loader.attach_stub`: each name below is imported from
its module on first use, and this one list is what both the type checker and the runtime read.
"""

from .commands import COMMAND_ROLES as COMMAND_ROLES
from .commands import CommandChannel as CommandChannel
from .commands import CommandClient as CommandClient
from .commands import CommandDecision as CommandDecision
from .commands import CommandReply as CommandReply
from .commands import CommandRequest as CommandRequest
from .keys import RESTRICTED_READERS as RESTRICTED_READERS
from .keys import ROLES as ROLES
from .keys import AllowList as AllowList
from .keys import KeyPair as KeyPair
from .proxy import StreamProxy as StreamProxy
from .publisher import EventPublisher as EventPublisher
from .publisher import StreamName as StreamName
from .replay import EventSource as EventSource
from .replay import ReplayClient as ReplayClient
from .replay import ReplayService as ReplayService
from .security import ServerSecurity as ServerSecurity
from .subscriber import ReplayTarget as ReplayTarget
from .subscriber import Subscriber as Subscriber
from .wire import EnvelopeLike as EnvelopeLike
from .wire import WireEvent as WireEvent
