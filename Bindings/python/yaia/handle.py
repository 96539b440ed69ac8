"""What Runtime, Scene and Flow share: closing with ``with``, and a
runtime's handle with the requests sent through it."""

from __future__ import annotations

import ctypes
from types import TracebackType
from typing import Any, Dict, Mapping, Optional, Type, TypeVar, Union

from . import ffi
from .errors import YaiaError

_C = TypeVar("_C", bound="_Closeable")


class _Closeable:
    """Runtime, Scene and Flow: ``with obj:`` calls ``obj.close()`` at the end."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self: _C) -> _C:
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()


class _Requests(_Closeable):
    """A runtime handle and the requests sent through it (see yaia.h)."""

    _lib: ctypes.CDLL
    _handle: int

    def _answer(self, ptr: Optional[int]) -> Dict[str, Any]:
        text = ffi.take_string(self._lib, ptr)
        if text is None:
            raise YaiaError("internal", "the library returned NULL")
        return self._checked(ffi.decode(text))

    def _checked(self, response: Any) -> Dict[str, Any]:
        """A parsed answer that is a success; raises the error of any other."""
        if not isinstance(response, dict) or response.get("ok") is not True:
            raise YaiaError.from_envelope(response if isinstance(response, dict) else {})
        return response

    def execute_text(self, request: Union[str, bytes]) -> Dict[str, Any]:
        """Performs a request given as JSON text, as is; raises on an error envelope."""
        data = request.encode("utf-8") if isinstance(request, str) else bytes(request)
        return self._answer(self._lib.yaia_execute_n(self._handle, data, len(data)))

    def execute(self, request: Mapping[str, Any]) -> Dict[str, Any]:
        """Performs one request (see yaia.h); returns the response, raises YaiaError on failure."""
        data = ffi.encode(request)
        return self._answer(self._lib.yaia_execute_n(self._handle, data, len(data)))
