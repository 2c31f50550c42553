import ast
import json
import re
import re._constants as sre_c
import re._parser as sre_p
from pathlib import Path

import pytest
import re2
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from app.drafts.cli import draft_command
from app.drafts.extract import Placeholder, normalise
from app.drafts.records import (
    default_path_prefix,
    error_type,
    instantiate,
    message_pattern,
    render_message,
)
from app.drafts.scan import raise_sites
from app.drafts.services import draft_records, iter_sites
from app.matching import MatchIndex, PatternEntry

pytestmark = pytest.mark.unit

REPO = "acme/minipkg"
SHA = "0132848349585cfe6aae51c4941cbae872505f8a"
SEED_KEYS = list(
    json.loads(
        (Path(__file__).resolve().parents[2] / "data/records/sglang.jsonl")
        .read_text()
        .splitlines()[0]
    )["record"]
)
EXPECTED = [
    ("ValueError", "trtllm_mla backend can only be used with MLA models."),
    ("NotImplementedError", "Backend {name} is not supported (got {n} heads)"),
    ("RuntimeError", "Too many heads: {n} > {4}"),
    ("ValueError", "Invalid head count {n} for {name}"),
    ("KeyError", "missing key: {str(name)}"),
    ("torch.OutOfMemoryError", "CUDA out of memory. Tried to allocate {n} GiB"),
    ("ValueError", "Bad value (x+y)*[z]? {literal} {name}.\nSee docs."),
    ("ValueError", "Rate {n}% exceeds {1}"),
]


def drafts(source):
    return list(draft_records(source, REPO, SHA, analyzed_at="2026-12-01T00:00:00.000Z"))


def test_directory_drafts(package_dir):
    records = drafts(package_dir)
    assert [(r["errorClass"], r["errorMessage"]) for r in records] == EXPECTED
    first = records[0]
    assert list(first) == SEED_KEYS
    assert first["filePath"] == "minipkg/srt/backends.py"
    assert first["lineNumber"] == 6
    assert (first["sourceCodeStart"], first["sourceCodeEnd"]) == (1, 22)
    assert 'raise ValueError("trtllm_mla backend' in first["sourceCode"]
    assert first["githubUrl"] == (
        f"https://github.com/{REPO}/blob/{SHA}/minipkg/srt/backends.py#L1-L22"
    )
    assert re.fullmatch(r"[0-9a-f]{16}", first["id"])
    assert first["slug"] == "trtllm-mla-backend-can-only-be-used-with-mla-model"
    assert first["messagePattern"] == r"trtllm_mla backend can only be used with MLA models\."
    assert (first["errorType"], first["severity"], first["schemaVersion"]) == (
        "validation",
        "error",
        2,
    )
    assert (first["analyzedSha"], first["analyzedAt"]) == (SHA, "2026-12-01T00:00:00.000Z")
    assert first["documentation"] == "" and first["solutions"] == [] and first["tags"] == []
    assert first["errorCode"] is None and first["tryCatchPattern"] is None


def test_multiline_raise_points_at_the_raise_line(package_dir):
    record = drafts(package_dir)[2]
    assert record["lineNumber"] == 10
    assert record["sourceCodeEnd"] == 22  # clipped at the end of the file


def test_wheel_matches_directory_and_reads_purelib(package_dir, wheel):
    from_dir = drafts(package_dir)
    from_wheel = drafts(wheel)
    assert from_wheel[: len(from_dir)] == from_dir
    assert [r["filePath"] for r in from_wheel[len(from_dir) :]] == ["minipkg_extra/x.py"]


def test_ids_are_deterministic_and_distinct(package_dir):
    ids = [r["id"] for r in drafts(package_dir)]
    assert ids == [r["id"] for r in drafts(package_dir)]
    assert len(set(ids)) == len(ids)


def test_path_prefix(package_dir):
    (record, *_) = draft_records(package_dir, "sgl-project/sglang", SHA)
    assert record["filePath"] == "python/minipkg/srt/backends.py"
    (record, *_) = draft_records(package_dir, REPO, SHA, path_prefix="src")
    assert record["filePath"] == "src/minipkg/srt/backends.py"
    assert default_path_prefix("sgl-project/sglang") == "python/"
    assert default_path_prefix("pallets/flask") == ""


def test_not_a_package(tmp_path):
    bogus = tmp_path / "notes.txt"
    bogus.write_text("hello")
    with pytest.raises(ValueError, match="not a package directory, wheel or source archive"):
        drafts(bogus)


def _check_no_nested_quantifier(seq, inside_repeat=False):
    for op, av in seq:
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT):
            assert not inside_repeat
            _check_no_nested_quantifier(av[2], True)
        elif op is sre_c.SUBPATTERN:
            _check_no_nested_quantifier(av[-1], inside_repeat)


def test_every_pattern_matches_its_instantiated_message(package_dir, wheel):
    values = ["", "8", "llama-3 (8B)", "a.b*c", "x\\y", "{braces}", "ünïcode"]
    sites = list(iter_sites(wheel))
    assert len(sites) == len(EXPECTED) + 1
    for _path, _lines, site in sites:
        pattern = message_pattern(site.parts, site.error_class)
        _check_no_nested_quantifier(sre_p.parse(pattern))
        rx2 = re2.compile(pattern)
        for value in values[1:]:
            names = {p.name for p in site.parts if isinstance(p, Placeholder)}
            message = instantiate(site.parts, dict.fromkeys(names, value)).strip()
            assert re.fullmatch(pattern, message), (pattern, message)
            assert rx2.fullmatch(message) is not None


def test_generated_patterns_match_through_the_index(package_dir):
    records = drafts(package_dir)
    index = MatchIndex(PatternEntry(r["id"], r["messagePattern"]) for r in records)
    sites = [site for _, _, site in iter_sites(package_dir)]
    for record, site in zip(records, sites, strict=True):
        message = instantiate(site.parts, {}).strip()
        ids = {h.entry.record_id for h in index.search(message) if h.whole}
        assert record["id"] in ids, message


parts_strategy = st.lists(
    st.one_of(
        st.text(min_size=1, max_size=10),
        st.builds(Placeholder, st.sampled_from(["a", "b.c", "f(x)"])),
    ),
    min_size=1,
    max_size=6,
)
values_strategy = st.from_regex(r"[abc1.{}()*\\]([abc1 .{}()*?]{0,6}[abc1.{}()*])?", fullmatch=True)


@settings(max_examples=300, deadline=None)
@given(parts_strategy, values_strategy)
def test_pattern_fullmatches_any_instantiation(parts, value):
    norm = normalise(parts)
    pattern = message_pattern(norm)
    message = instantiate(norm, {p.name: value for p in norm if isinstance(p, Placeholder)})
    assert re.fullmatch(pattern, message.strip()), (pattern, message)
    assert re2.compile(pattern).fullmatch(message.strip()) is not None


def test_render_and_skip_rules():
    tree = ast.parse(
        "raise ValueError('a' 'b ' f'{x}')\n"
        "raise ValueError(msg=f'keyword {y} message')\n"
        "raise ValueError(f'{x}{y}')\n"
    )
    sites = list(raise_sites(tree))
    assert [render_message(s.parts) for s in sites] == ["ab {x}", "keyword {y} message"]


@pytest.mark.parametrize(
    ("cls", "kind"),
    [
        ("ValueError", "validation"),
        ("NotImplementedError", "unsupported"),
        ("RuntimeError", "runtime"),
        ("torch.OutOfMemoryError", "resource"),
        ("ModuleNotFoundError", "dependency"),
        ("InvalidConfigError", "configuration"),
        ("SchedulerCrash", "runtime"),
    ],
)
def test_error_type(cls, kind):
    assert error_type(cls) == kind


def test_cli_writes_jsonl(package_dir, tmp_path):
    out = tmp_path / "drafts.jsonl"
    result = CliRunner().invoke(
        draft_command, ["--from", str(package_dir), "--repo", REPO, "--sha", SHA, "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == len(EXPECTED)
    assert all(line["draft"] is True for line in lines)
    assert lines[0]["datasetVersion"] == lines[0]["record"]["analyzedAt"]
    assert list(lines[0]) == ["record", "datasetVersion", "draft"]


def test_cli_stdout_and_bad_repo(package_dir):
    runner = CliRunner()
    ok = runner.invoke(draft_command, ["--from", str(package_dir), "--repo", REPO, "--sha", SHA])
    assert ok.exit_code == 0
    assert ok.stdout.count('"draft": true') == len(EXPECTED)
    bad = runner.invoke(draft_command, ["--from", str(package_dir), "--repo", "nope", "--sha", SHA])
    assert bad.exit_code == 2 and "OWNER/NAME" in bad.output


def test_cli_takes_a_release_tag_instead_of_a_sha(wheel):
    runner = CliRunner()
    ok = runner.invoke(draft_command, ["--from", str(wheel), "--repo", REPO, "--tag", "v1.0"])
    assert ok.exit_code == 0, ok.output
    record = json.loads(ok.stdout.splitlines()[0])["record"]
    assert "/blob/v1.0/minipkg/srt/backends.py#L" in record["githubUrl"]
    assert re.fullmatch(r"[0-9a-f]{40}", record["analyzedSha"])  # the wheel's SHA-256
    neither = runner.invoke(draft_command, ["--from", str(wheel), "--repo", REPO])
    assert neither.exit_code == 2 and "--tag" in neither.output
