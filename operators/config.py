"""Configuration: typed msgspec Structs, loaded from TOML and validated at the edge.

The defaults live here; ``config/default.toml`` spells them out for users to copy and edit. The file
read by ``tokens`` is ``$NOLIFE_TOKENS_CONFIG`` if set, else the user's ``config.toml`` in the
platform's config dir (``$XDG_CONFIG_HOME/nolife-tokens/config.toml``, ``~/.config/…``) if present,
else none (the defaults). The project's main job (``load_config(project=True)``) reads
``$NOLIFE_TOKENS_CONFIG`` or the project's ``config/default.toml``.
Unknown keys and wrong types are readable errors naming the file and the key.

``Config`` is assembled here (``config_class``) from the type registry and the sections of the safety
pass and the ceiling, so this module sits above them; they declare their sections on ``Section``
from ``operators.configbase`` (a content type may take it from here, as docs/extending.md shows).
A config read from no file is a ``defaults_class`` (no content type imported to make it); ``section``
gives a type its section's defaults from that type's ``Settings`` alone.

Where the store lives (``home``), never the current directory unless asked for: ``$NOLIFE_TOKENS_HOME``
(a relative value: from the current directory, as any path typed by hand), else the config's ``home``
(a relative value: from the directory of the config file, the project root for the project's
``config/default.toml``), else the per-user data dir (``$XDG_DATA_HOME/nolife-tokens``,
``~/.local/share/nolife-tokens``), or for the main job in a checkout the checkout's ``var/``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Literal

import msgspec

from operators.configbase import Section
from operators.errors import TokensError

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# a checkout (or an editable install) has pyproject.toml at its root and the bundled files at the top
# level; an installed package carries them as operators/defaults and operators/fixtures (pyproject.toml)
IN_CHECKOUT = (PROJECT_ROOT / "pyproject.toml").is_file()
DEFAULT_CONFIG = (PROJECT_ROOT / "config" if IN_CHECKOUT else Path(__file__).resolve().parent / "defaults") / "default.toml"
BUNDLED_FIXTURES = PROJECT_ROOT / "fixtures" if IN_CHECKOUT else Path(__file__).resolve().parent / "fixtures"

class ConfigError(TokensError):
    """A clear, user-facing configuration problem."""

    exit_code = 2


class ReduceConfig(Section):
    granularity: Literal["coarse", "fine"] = "coarse"
    force_type: str | None = None  # a registered content type (operators.types); checked at load
    min_bytes: Annotated[int, msgspec.Meta(ge=0)] = 4096  # shorter inputs pass through untouched
    tokenizer: Literal["bytes4", "o200k", "cl100k"] = "bytes4"  # bytes4 = ceil(bytes/4); others: real BPE counts, offline


class StoreSettings(Section):
    """``[store]``: the automatic retention of the store (``operators.store.retention_of``)."""

    max_age_days: Annotated[float, msgspec.Meta(gt=0)] = 30  # records unused this long go
    max_bytes: Annotated[int, msgspec.Meta(ge=0)] = 2 * 1024**3  # then the least recently used, down to this size
    keep_newer_hours: Annotated[float, msgspec.Meta(ge=0)] = 24  # nothing used this recently is ever removed
    auto: bool = True  # false: only `tokens refs gc` removes anything


class TailConfig(Section):
    window_lines: Annotated[int, msgspec.Meta(ge=1)] = 2000  # a window closes after this many lines
    idle_ms: Annotated[int, msgspec.Meta(ge=1)] = 500  # ... or when the file was quiet this long
    max_ms: Annotated[int, msgspec.Meta(ge=1)] = 2000  # ... or when it has been open this long
    partial_flush_ms: Annotated[int, msgspec.Meta(ge=1)] = 2000  # a last line without newline is held this long
    poll_ms: Annotated[int, msgspec.Meta(ge=1)] = 100


class StageSpec(Section):
    path: str  # "module:function"
    after: str = "OPTIMIZE"  # a stage of operators.stages.STAGE_NAMES (checked when the stages are built)


class TypeSpec(Section):
    module: str  # an importable module that follows the content-type contract (docs/extending.md)
    before: str = "text"  # detected just before this registered type


class _TypesOnly(msgspec.Struct):
    """The ``[[types]]`` of a config file, read before the rest: their sections are part of Config."""

    types: list[TypeSpec] = []


class BaseConfig(Section):
    """The settings every run has; ``Config`` adds one section per content type (see ``config_class``)."""

    home: str = ""  # store and outputs live under here; empty: the per-user data dir (see home_path)
    reduce: ReduceConfig = msgspec.field(default_factory=ReduceConfig)
    tail: TailConfig = msgspec.field(default_factory=TailConfig)
    store: StoreSettings = msgspec.field(default_factory=StoreSettings)
    stages: list[StageSpec] = []
    types: list[TypeSpec] = []  # extra content types: the config's own registry (operators.types.registry_of)
    inputs: list[str] = []  # default: every fixture in fixtures/


_config_classes: dict[tuple, type] = {}


def config_class(registry=None) -> type:
    """``Config`` of a registry of content types (``operators.types``; None: the shipped ones):
    ``BaseConfig`` plus the ``[safety]`` and ``[ceiling]`` sections of those passes and a ``[name]``
    section for every type whose record has ``settings`` (so a type brings its own section). The class
    remembers its registry (``operators.types.registry_of``); one class per registry."""
    return _class_of(registry, with_types=True)


def defaults_class(registry=None) -> type:
    """The class of a config read from no file (every setting its default): ``BaseConfig`` and the
    ``[safety]`` and ``[ceiling]`` sections, which every run reads; a content type's section is its
    defaults, made by ``section`` when the type asks. Nothing is validated (there is nothing to
    read), so no type module is imported to make it: the classifier imports the types it asks, and
    the reducer only the type it picked. Same registry as ``config_class``; one class per registry."""
    return _class_of(registry, with_types=False)


def _class_of(registry, with_types: bool) -> type:
    """The ``Config`` class of ``registry`` (``BUILTIN`` for None), with every type's section or none."""
    from operators import types

    registry = registry or types.BUILTIN
    key = (with_types, registry.key)
    cls = _config_classes.get(key)
    if cls is None:
        from operators.ceiling import CeilingSettings
        from operators.safety import SafetySettings

        fields = [("safety", SafetySettings, msgspec.field(default_factory=SafetySettings)),
                  ("ceiling", CeilingSettings, msgspec.field(default_factory=CeilingSettings))]
        for record in registry if with_types else ():
            if record.settings is not None:
                fields.append((record.name, record.settings, msgspec.field(default_factory=record.settings)))
        cls = msgspec.defstruct("Config", fields, bases=(BaseConfig,), kw_only=True, forbid_unknown_fields=True,
                                module=__name__)
        cls.__type_registry__ = registry
        cls.__sections__ = {name: settings for name, settings, _ in fields}
        _config_classes[key] = cls
    return cls


def _settings_class(config, name: str) -> type:
    """The section class of ``[name]`` for ``config``: its class's own, else the type's ``Settings``
    of its registry (only that type's module imported). KeyError for a section no config has."""
    settings = (getattr(type(config), "__sections__", None) or {}).get(name)
    if settings is not None:
        return settings
    if name in ("safety", "ceiling"):
        return defaults_class().__sections__[name]
    from operators import types

    record = types.registry_of(config).find(name)
    if record is None or record.settings is None:
        raise KeyError(name)
    return record.settings


def section(config, name: str):
    """The ``[name]`` section of ``config``: a content type reads its own settings with
    ``section(config, NAME)``, any code the ``ceiling`` or ``safety`` ones; the section's defaults
    when ``config`` has none (None, a ``BaseConfig``, a config read from no file: ``defaults_class``).
    KeyError for a section no config has."""
    settings = _settings_class(config, name)
    found = getattr(config, name, None)
    return found if isinstance(found, settings) else settings()


def __getattr__(name: str):
    """``Config`` (see ``config_class``)."""
    if name == "Config":
        return config_class()
    raise AttributeError(name)


APP_NAME = "nolife-tokens"


def _user_dir(kind: str) -> Path:
    """``<user config|data dir>/nolife-tokens``. On Linux the XDG base directories are read directly
    (``$XDG_CONFIG_HOME`` or ``~/.config``, ``$XDG_DATA_HOME`` or ``~/.local/share``, as platformdirs
    reads them; importing it costs every start a few ms); elsewhere ``platformdirs`` knows the place."""
    if sys.platform.startswith("linux"):
        var, default = ("XDG_CONFIG_HOME", "~/.config") if kind == "config" else ("XDG_DATA_HOME", "~/.local/share")
        base = os.environ.get(var, "").strip() or os.path.expanduser(default)
        return Path(base) / APP_NAME
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME) if kind == "config" else platformdirs.user_data_dir(APP_NAME))


def user_config_file() -> Path:
    """The user's config file (it may not exist): ``<user config dir>/nolife-tokens/config.toml``."""
    return _user_dir("config") / "config.toml"


def user_data_dir() -> Path:
    """The default store home: ``$XDG_DATA_HOME/nolife-tokens`` (``~/.local/share/nolife-tokens``)."""
    return _user_dir("data")


def load_config(path: str | Path | None = None, project: bool = False) -> Config:
    """Load and validate a config. ``path`` None: ``$NOLIFE_TOKENS_CONFIG``, else the user's config file
    when present (``project``: the project's ``config/default.toml``), else the defaults. ``project``:
    the main job, whose default home in a checkout is the checkout's ``var/``."""
    if path is None:
        env = os.environ.get("NOLIFE_TOKENS_CONFIG")
        path = Path(env) if env else DEFAULT_CONFIG if project else user_config_file()
        if not env and not path.exists():
            return _with_env(defaults_class()(), project)
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from None
    try:
        registry = register_types(msgspec.toml.decode(data, type=_TypesOnly).types, path)
        config = msgspec.toml.decode(data, type=config_class(registry))
    except msgspec.ValidationError as exc:
        raise ConfigError(f"invalid config {path}: {exc}") from None
    except msgspec.DecodeError as exc:
        raise ConfigError(f"config {path} is not valid TOML: {exc}") from None
    _check_types(config, path)
    if config.home and not Path(config.home).is_absolute():  # relative to the file, never to the cwd
        base = PROJECT_ROOT if IN_CHECKOUT and path.resolve() == DEFAULT_CONFIG else path.resolve().parent
        config.home = str(base / config.home)
    return _with_env(config, project)


RESERVED = frozenset(BaseConfig.__struct_fields__) | {"safety", "ceiling"}  # sections no type may take


def register_types(specs: list[TypeSpec], path: Path):
    """The registry of content types a config's ``[[types]]`` make: the shipped ones and theirs, each
    checked once (a module named twice is registered once)."""
    import importlib

    from operators import types

    registry = types.BUILTIN
    for spec in specs:
        try:
            module = importlib.import_module(spec.module)
        except ImportError as exc:
            raise ConfigError(f"config {path}: cannot import content type module {spec.module!r}: {exc}") from None
        try:
            if str(getattr(module, "NAME", "")) in RESERVED:
                raise ValueError(f"NAME {module.NAME!r} is the name of another config section")
            registry = registry.with_module(module, before=spec.before)
        except ValueError as exc:
            raise ConfigError(f"config {path}: content type {spec.module!r}: {exc}") from None
    return registry


def _check_types(config, path: Path) -> None:
    from operators import types

    forced = config.reduce.force_type
    known = types.names(config)
    if forced is not None and forced not in known:
        raise ConfigError(f"invalid config {path}: reduce.force_type {forced!r} is not a content type "
                          f"(one of: {', '.join(known)})")


def _with_env(config: Config, project: bool = False) -> Config:
    home = os.environ.get("NOLIFE_TOKENS_HOME")
    if home:
        config.home = os.path.abspath(home)
    elif not config.home and project and IN_CHECKOUT:
        config.home = str(PROJECT_ROOT / "var")  # the main job in a checkout keeps the checkout's store
    return config


def home_path(config: Config) -> Path:
    """The store home: ``config.home`` (made absolute by ``load_config``; a relative one set in code is
    taken from the current directory), or the per-user data dir when it is empty."""
    if not config.home:
        return user_data_dir()
    home = Path(config.home)
    return home if home.is_absolute() else Path.cwd() / home
