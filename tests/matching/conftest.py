"""Realistic sglang error pastes, served to the matching tests by the `samples` fixture."""

from types import SimpleNamespace

import pytest

SEED_PATTERN = r"trtllm_mla backend can only be used with MLA models\."
SEED_MESSAGE = "trtllm_mla backend can only be used with MLA models."
SEED_PATH = "python/sglang/srt/layers/attention/attention_registry.py"
SITE = "/usr/lib/python3.11/site-packages/sglang/srt"

TP0 = "[2026-12-01 09:14:03 TP0] "
TP0_TRACEBACK = (
    "".join(
        TP0 + line + "\n"
        for line in (
            "Scheduler hit an exception: Traceback (most recent call last):",
            f'  File "{SITE}/managers/scheduler.py", line 2700, in run_scheduler_process',
            "    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, dp_rank)",
            "                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
            f'  File "{SITE}/model_executor/model_runner.py", line 1710, in init_attention_backend',
            "    self.attn_backend = self._get_attention_backend()",
            f'  File "{SITE}/layers/attention/attention_registry.py", line 75, '
            "in create_trtllm_mla_backend",
            '    raise ValueError("trtllm_mla backend can only be used with MLA models.")',
            "ValueError: trtllm_mla backend can only be used with MLA models.",
        )
    )
    + "[2026-12-01 09:14:04] Received sigquit from a child process. "
    + "It usually means the child failed.\n"
)

CHAINED_CAUSE = f"""\
Traceback (most recent call last):
  File "{SITE}/model_loader/loader.py", line 412, in load_weights
    param = params_dict[name]
            ~~~~~~~~~~~^^^^^^
KeyError: 'model.layers.0.mlp.gate_up_proj.weight_scale'

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "{SITE}/model_executor/model_runner.py", line 801, in load_model
    self.model = get_model(model_config=self.model_config)
  File "{SITE}/model_loader/loader.py", line 420, in load_weights
    raise RuntimeError(f"Failed to load weights for {{name}}") from e
RuntimeError: Failed to load weights for model.layers.0.mlp.gate_up_proj.weight_scale
"""

DURING_HANDLING = f"""\
Traceback (most recent call last):
  File "{SITE}/utils.py", line 88, in get_device_memory
    import pynvml
ModuleNotFoundError: No module named 'pynvml'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "{SITE}/server_args.py", line 655, in __post_init__
    raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB.")
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.
"""

MULTILINE = f"""\
Traceback (most recent call last):
  File "{SITE}/configs/model_config.py", line 310, in _verify_quantization
    raise ValueError(
ValueError: Unknown quantization method: fp5.
Supported methods: awq, fp8, gptq.
"""

ISSUE_BODY = f"""\
### Describe the bug

Launching with `--attention-backend trtllm_mla` on Qwen fails:

```
$ python -m sglang.launch_server --model Qwen/Qwen2.5-7B --attention-backend trtllm_mla
Traceback (most recent call last):
  File "{SITE}/layers/attention/attention_registry.py", line 75, in create_trtllm_mla_backend
    raise ValueError("trtllm_mla backend can only be used with MLA models.")
ValueError: trtllm_mla backend can only be used with MLA models.
```

### Reproduction
Any non-MLA model.
"""

JSON_LOG = (
    '{"ts": "2026-12-01T09:14:03Z", "level": "ERROR", "logger": "sglang", '
    '"msg": "Scheduler hit an exception: Traceback (most recent call last):\\n'
    f'  File \\"{SITE}/layers/attention/attention_registry.py\\", line 75, '
    "in create_trtllm_mla_backend\\n"
    '    raise ValueError(\\"trtllm_mla backend can only be used with MLA models.\\")\\n'
    'ValueError: trtllm_mla backend can only be used with MLA models.\\n"}\n'
)

ANSI_CRLF = (
    "\x1b[31m[2026-12-01 09:14:03 TP0] Traceback (most recent call last):\x1b[0m\r\n"
    f'[2026-12-01 09:14:03 TP0]   File "{SITE}/layers/attention/attention_registry.py", '
    "line 75, in create_trtllm_mla_backend\r\n"
    '[2026-12-01 09:14:03 TP0]     raise ValueError("trtllm_mla ...")\r\n'
    "\x1b[1;31m[2026-12-01 09:14:03 TP0] ValueError\x1b[0m: "
    "trtllm_mla backend can only be used with MLA models.\r\n"
)

COMPOSE = (
    "sglang-1  | 2026-12-01 09:14:03,123 - sglang.srt - ERROR - "
    "Traceback (most recent call last):\n"
    f'sglang-1  | 2026-12-01 09:14:03,123 - sglang.srt - ERROR -   File "{SITE}/a.py", '
    "line 3, in f\n"
    "sglang-1  | 2026-12-01 09:14:03,123 - sglang.srt - ERROR -     raise ValueError(msg)\n"
    "sglang-1  | 2026-12-01 09:14:03,123 - sglang.srt - ERROR - ValueError: "
    "trtllm_mla backend can only be used with MLA models.\n"
    "sglang-1  | 2026-12-01 09:14:05,001 - sglang.srt - INFO - shutting down\n"
)


@pytest.fixture
def samples() -> SimpleNamespace:
    """The sample pastes above, as attributes (conftest modules cannot be imported)."""
    return SimpleNamespace(**{k: v for k, v in globals().items() if k.isupper()})
