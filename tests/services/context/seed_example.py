"""Seed 000's 15-message example ("评分效果示例"), as the seed writes it."""

from __future__ import annotations

from services.context.shared.messages import ChatMessage

TASK = "重构认证系统，添加JWT支持"

SEED_CONVERSATION = [
    ChatMessage("user", "帮我重构认证系统，添加JWT支持"),
    ChatMessage("assistant", "好的，我先了解现有代码..."),
    ChatMessage("tool", "read_file(auth/login.py) → 返回代码内容"),
    ChatMessage("assistant", "发现使用session认证，建议改为JWT..."),
    ChatMessage("user", "好的，那就改吧"),
    ChatMessage("tool", "edit_file(auth/login.py) → 修改认证逻辑"),
    ChatMessage("assistant", "修改完成，正在验证..."),
    ChatMessage("tool", 'search_code("jwt") → 搜索结果'),
    ChatMessage("assistant", "发现还需要修改config..."),
    ChatMessage("tool", "read_file(config.py)"),
    ChatMessage("tool", "edit_file(config.py) → 添加JWT配置"),
    ChatMessage("user", "测试一下能不能用"),
    ChatMessage("tool", 'run_terminal("pytest auth/test_login.py")'),
    ChatMessage("assistant", "测试通过！JWT认证已生效"),
    ChatMessage("user", "很好，谢谢"),
]

SEED_KEPT = [0, 2, 3, 5, 10, 12, 13, 14]
