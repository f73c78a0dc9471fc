"""Configuration: typed msgspec Structs, loaded from TOML and validated at the edge.

The defaults live here; ``config/default.toml`` spells them out for users to copy and edit. The file
read is ``$NOLIFE_TOKENS_CONFIG`` if set, else the project's ``config/default.toml`` if present.
Unknown keys and wrong types are readable errors naming the file and the key.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Literal

import msgspec

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG = PROJECT_ROOT / "config" / "default.toml"

Stage = Literal["LOAD", "CLASSIFY", "MEASURE_RAW", "OPTIMIZE", "STORE", "MEASURE_OPT", "SIGNAL", "RECOVERY", "RESTORE"]
ContentType = Literal["log", "json", "diff", "filelist", "text", "build"]


class ConfigError(Exception):
    """A clear, user-facing configuration problem."""


class Section(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    pass


class ReduceConfig(Section):
    granularity: Literal["coarse", "fine"] = "coarse"
    force_type: ContentType | None = None
    min_bytes: Annotated[int, msgspec.Meta(ge=0)] = 512  # shorter inputs pass through untouched
    tokenizer: Literal["bytes4", "o200k", "cl100k"] = "bytes4"  # bytes4 = ceil(bytes/4); others: real BPE counts, offline


class LogConfig(Section):
    fold_min: Annotated[int, msgspec.Meta(ge=2)] = 3  # a template seen fewer times than this is a rare line and stays visible
    mask_templates: bool = True  # group lines that differ only by numbers, ids, hex, timestamps
    long_line: Annotated[int, msgspec.Meta(ge=0)] = 4096  # bytes of a non-signal line shown; the rest to a ref (0: never cut)


class JsonConfig(Section):
    decision_keys: list[str] = msgspec.field(default_factory=lambda: [
        "id", "status", "state", "error", "errors", "message", "msg", "code", "reason", "detail",
        "type", "name", "result", "success", "ok", "title", "version",
    ])
    noise_keys: list[str] = msgspec.field(default_factory=lambda: [
        "telemetry", "debug", "trace", "traces", "tracing", "metrics", "diagnostics", "stacktrace_raw",
        "_links", "links", "headers", "request_headers", "response_headers", "meta", "metadata",
        "raw", "internal", "profiling", "timings", "spans", "logs", "history", "audit",
    ])
    padding_globs: list[str] = msgspec.field(default_factory=lambda: ["padding_*", "noise_*", "filler_*", "_pad*"])
    array_keep: int = 3  # long arrays of same-shaped objects keep this many items visible
    array_min: int = 8  # ... once they have at least this many
    string_max: int = 2048  # longer non-decision strings go to a ref


class DiffConfig(Section):
    context_keep: int = 1  # unchanged lines kept next to each change


class FilelistConfig(Section):
    max_entries_per_dir: int = 8
    max_depth: int = 3


class TailConfig(Section):
    window_lines: Annotated[int, msgspec.Meta(ge=1)] = 2000  # a window closes after this many lines
    idle_ms: Annotated[int, msgspec.Meta(ge=1)] = 500  # ... or when the file was quiet this long
    max_ms: Annotated[int, msgspec.Meta(ge=1)] = 2000  # ... or when it has been open this long
    partial_flush_ms: Annotated[int, msgspec.Meta(ge=1)] = 2000  # a last line without newline is held this long
    poll_ms: Annotated[int, msgspec.Meta(ge=1)] = 100


class StageSpec(Section):
    path: str  # "module:function"
    after: Stage = "OPTIMIZE"


class Config(Section):
    home: str = "var"  # store and outputs live under here
    reduce: ReduceConfig = msgspec.field(default_factory=ReduceConfig)
    log: LogConfig = msgspec.field(default_factory=LogConfig)
    json: JsonConfig = msgspec.field(default_factory=JsonConfig)
    diff: DiffConfig = msgspec.field(default_factory=DiffConfig)
    filelist: FilelistConfig = msgspec.field(default_factory=FilelistConfig)
    tail: TailConfig = msgspec.field(default_factory=TailConfig)
    stages: list[StageSpec] = []
    inputs: list[str] = []  # default: every fixture in fixtures/


def load_config(path: str | Path | None = None) -> Config:
    if path is None:
        env = os.environ.get("NOLIFE_TOKENS_CONFIG")
        path = Path(env) if env else DEFAULT_CONFIG
        if not env and not path.exists():
            return _with_env(Config())
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from None
    try:
        config = msgspec.toml.decode(data, type=Config)
    except msgspec.ValidationError as exc:
        raise ConfigError(f"invalid config {path}: {exc}") from None
    except msgspec.DecodeError as exc:
        raise ConfigError(f"config {path} is not valid TOML: {exc}") from None
    return _with_env(config)


def _with_env(config: Config) -> Config:
    home = os.environ.get("NOLIFE_TOKENS_HOME")
    if home:
        config.home = home
    return config


def home_path(config: Config) -> Path:
    home = Path(config.home)
    return home if home.is_absolute() else Path.cwd() / home
