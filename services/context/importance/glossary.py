"""Everyday software terms in Chinese and English, so relevance crosses languages.

Chinese developers write the task in Chinese and the code in English: 「重构认证系统」 and
``auth/login.py`` are about the same thing. Each group below is one concept; a message and a
task sharing a concept share a term (``@<first word>``), exactly as if they shared a word.
The list is general vocabulary, not any one conversation's.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Final

from services.text import get_tokenizer

CONCEPT_PREFIX: Final = "@"

GROUPS: Final[tuple[tuple[str, ...], ...]] = (
    ("认证", "鉴权", "身份验证", "auth", "authentication", "authenticate", "authn"),
    ("授权", "权限", "authz", "permission", "permissions"),
    ("登录", "登陆", "login", "signin", "logon"),
    ("注册", "signup", "register", "registration"),
    ("配置", "config", "configuration", "conf"),
    ("数据库", "database", "db", "sql"),
    ("测试", "单元测试", "test", "tests", "testing", "pytest", "unittest"),
    ("部署", "上线", "deploy", "deployment", "release"),
    ("缓存", "cache", "caching", "redis"),
    ("日志", "log", "logs", "logging", "logger"),
    ("接口", "api", "endpoint", "endpoints", "interface"),
    ("路由", "route", "routes", "router", "routing"),
    ("用户", "user", "users", "account", "accounts"),
    ("密码", "password", "passwd", "credential", "credentials"),
    ("令牌", "token", "tokens", "jwt"),
    ("会话", "session", "sessions", "cookie"),
    ("错误", "报错", "异常", "error", "errors", "bug"),
    ("依赖", "dependency", "dependencies", "package", "packages"),
    ("性能", "latency"),
    ("搜索", "search", "query", "lookup"),
    ("文件", "file", "files"),
    ("函数", "方法", "function", "method", "func", "def"),
    ("模型", "model", "models", "schema"),
    ("迁移", "migration", "migrations", "migrate"),
    ("前端", "frontend"),
    ("后端", "backend"),
    ("文档", "docs", "readme"),
    ("重构", "refactor", "refactoring", "restructure"),
    ("加密", "encrypt", "encryption", "hash", "hashing"),
    ("中间件", "middleware"),
    ("队列", "queue", "queues"),
    ("版本", "version", "versions"),
)


@lru_cache(maxsize=1)
def concept_index() -> dict[str, str]:
    """Token (as the tokenizer emits it: lowercased, stemmed) → concept term."""
    tokenizer = get_tokenizer()
    index: dict[str, str] = {}
    for group in GROUPS:
        concept = CONCEPT_PREFIX + group[0]
        for word in group:
            # Only the whole word: 「数据库」 must not make 「数据」 mean database.
            tokens = tokenizer.tokenize(word)
            whole = word.lower() if word.lower() in tokens else None
            token = whole or (tokens[0] if len(tokens) == 1 else None)
            if token is not None:
                index.setdefault(token, concept)
    return index


def concepts(tokens: Iterable[str]) -> set[str]:
    """The concept terms the tokens name."""
    index = concept_index()
    return {index[t] for t in tokens if t in index}
