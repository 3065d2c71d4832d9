# Type stubs for the `melange` extension module (PEP 561 stub-only package,
# installed beside it by `pip install .`). Every integer argument takes a
# Python int or a NumPy integer; `seed` defaults to DEFAULT_SEED.
from typing import Any, Literal, Optional, Sequence, SupportsIndex, Union

import numpy as np
import numpy.typing as npt

__version__: str
DEFAULT_SEED: int
SHUFFLE_KEYWORDS: tuple[str, ...]
PREDICT_FAMILIES: tuple[str, ...]

Integer = SupportsIndex
Count = Union[SupportsIndex, float]  # a whole float such as 1e6 is a count too
Seed = Optional[SupportsIndex]       # None: DEFAULT_SEED
Records = npt.NDArray[Union[np.uint8, np.uint16]]

def permutations(n: Integer, count: Optional[Count] = None, *, algo: str = "fisher-yates", seed: Seed = ...,
                 first: Integer = 0, method: str = "batched", bits: Integer = 32, threads: Optional[Integer] = None,
                 backend: str = "auto", out: Optional[npt.NDArray[Any]] = None,
                 riffles: Optional[Integer] = None, shelves: Optional[Integer] = None,
                 passes: Optional[Integer] = None) -> Records: ...
def deals(n: Integer, k: Integer, count: Optional[Count] = None, *, seed: Seed = ..., first: Integer = 0,
          method: str = "batched", bits: Integer = 32, threads: Optional[Integer] = None, backend: str = "auto",
          out: Optional[npt.NDArray[Any]] = None) -> Records: ...
def weighted(weights: Sequence[float], count: Optional[Count] = None, *, algo: str = "weighted", seed: Seed = ...,
             first: Integer = 0, threads: Optional[Integer] = None, backend: str = "auto",
             out: Optional[npt.NDArray[Any]] = None) -> Records: ...
Shape = Union[SupportsIndex, Sequence[SupportsIndex]]

def integers(low: Integer, high: Optional[Integer] = None, size: Optional[Shape] = None, *, endpoint: bool = False,
             dtype: npt.DTypeLike = ..., seed: Seed = ..., stream: Integer = 0, method: str = "batched",
             bits: Integer = 32, out: Optional[npt.NDArray[np.integer[Any]]] = None) -> Any: ...
def permuted(x: npt.ArrayLike, *, axis: Integer = -1, seed: Seed = ..., first: Integer = 0, method: str = "batched",
             threads: Optional[Integer] = None, backend: str = "auto",
             out: Optional[npt.NDArray[Any]] = None) -> npt.NDArray[Any]: ...

class Stream:
    seed: int
    first: int
    end: int
    def __init__(self, seed: Seed = ..., first: Integer = 0) -> None: ...
    def permutations(self, n: Integer, count: Optional[Count] = None, *, algo: str = "fisher-yates",
                     method: str = "batched", bits: Integer = 32, threads: Optional[Integer] = None,
                     backend: str = "auto", out: Optional[npt.NDArray[Any]] = None,
                     riffles: Optional[Integer] = None, shelves: Optional[Integer] = None,
                     passes: Optional[Integer] = None) -> Records: ...
    def deals(self, n: Integer, k: Integer, count: Optional[Count] = None, *, method: str = "batched",
              bits: Integer = 32, threads: Optional[Integer] = None, backend: str = "auto",
              out: Optional[npt.NDArray[Any]] = None) -> Records: ...
    def weighted(self, weights: Sequence[float], count: Optional[Count] = None, *, algo: str = "weighted",
                 threads: Optional[Integer] = None, backend: str = "auto",
                 out: Optional[npt.NDArray[Any]] = None) -> Records: ...
    def integers(self, low: Integer, high: Optional[Integer] = None, size: Optional[Shape] = None, *,
                 endpoint: bool = False, dtype: npt.DTypeLike = ..., method: str = "batched", bits: Integer = 32,
                 out: Optional[npt.NDArray[np.integer[Any]]] = None) -> Any: ...
    def permuted(self, x: npt.ArrayLike, *, axis: Integer = -1, method: str = "batched",
                 threads: Optional[Integer] = None, backend: str = "auto",
                 out: Optional[npt.NDArray[Any]] = None) -> npt.NDArray[Any]: ...
    def spawn(self, k: Integer, span: Optional[Integer] = None) -> list[Stream]: ...
    def jumped(self, trials: Integer) -> Stream: ...

class AuditResult:
    @property
    def histogram(self) -> Optional[npt.NDArray[np.uint64]]: ...
    @property
    def positions(self) -> Optional[npt.NDArray[np.uint64]]: ...
    @property
    def hands(self) -> Optional[npt.NDArray[np.uint64]]: ...
    def counts(self, kind: str) -> Optional[npt.NDArray[np.uint64]]: ...
    @property
    def tests(self) -> list[dict[str, Any]]: ...
    @property
    def verdict(self) -> str: ...
    @property
    def records_for_a_verdict(self) -> Optional[float]: ...
    @property
    def trials(self) -> int: ...
    def to_json(self) -> str: ...

def audit(*, algo: str = "fisher-yates", n: Integer = 4, trials: Count = 1000000, k: Optional[Integer] = None,
          weights: Sequence[float] = ..., seed: Seed = ..., first: Integer = 0, method: str = "batched",
          bits: Integer = 32, threads: Optional[Integer] = None, backend: str = "auto", position: bool = False,
          hands: bool = False, model: Optional[str] = None, serial: bool = False,
          riffles: Optional[Integer] = None, shelves: Optional[Integer] = None,
          passes: Optional[Integer] = None) -> AuditResult: ...
def audit_records(records: npt.ArrayLike, *, n: Optional[Integer] = None, k: Optional[Integer] = None,
                  position: bool = False, hands: bool = False, model: Optional[str] = None,
                  algo: str = "fisher-yates", method: str = "batched", bits: Integer = 32,
                  skip_invalid: Union[bool, Literal["all"]] = False, stream_tests: bool = True,
                  lags: Sequence[int] = ..., riffles: Optional[Integer] = None,
                  shelves: Optional[Integer] = None, passes: Optional[Integer] = None,
                  predict_seconds: Optional[float] = None) -> AuditResult: ...
def exact(*, algo: str = "fisher-yates", n: Integer = 4, k: Optional[Integer] = None, weights: Sequence[float] = ...,
          method: str = "batched", bits: Integer = 32, threads: Optional[Integer] = None) -> dict[str, Any]: ...
def riffle_law(n: Integer, riffles: Integer) -> dict[str, Any]: ...
def predict(records: Sequence[Sequence[Optional[int]]], *, families: Optional[Sequence[str]] = None,
            seeds: Optional[tuple[Integer, Integer]] = None, n: Optional[Integer] = None, next: Integer = 1,
            threads: Optional[Integer] = None, reseed_window: Integer = 1048576,
            backend: str = "auto") -> dict[str, Any]: ...
def shelf_law(n: Integer, shelves: Integer, passes: Integer = 1) -> dict[str, Any]: ...
