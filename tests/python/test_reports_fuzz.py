"""The mutation fuzzer of report.py and compare.py (tests/fuzz/reports_fuzz.py, run for a minute
by scripts/sanitize.sh): it runs, and its oracle fails a run that ends in a traceback or in an
exit 2 of more than one line."""
from conftest import ROOT, import_file

FUZZER = import_file(ROOT / "tests" / "fuzz" / "reports_fuzz.py")


def test_a_few_cases_pass_and_print_their_seed(tmp_path, capsys):
    assert FUZZER.main(["--seed", "7", "--cases", "12", "--artifacts", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "seed 7" in out and "12 cases" in out and "no failure" in out


def test_a_traceback_fails_the_fuzzer_and_keeps_its_input(tmp_path, capsys, monkeypatch):
    def broken_main(argv):
        raise ZeroDivisionError("test: a reader bug")
    monkeypatch.setattr(FUZZER.cli, "main", broken_main)
    monkeypatch.setattr(FUZZER.compare, "main", broken_main)
    assert FUZZER.main(["--seed", "7", "--cases", "3", "--artifacts", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "case 1 of seed 7 failed (ZeroDivisionError at test_reports_fuzz.py" in err
    assert "replay with --seed 7 --cases 1" in err
    assert (tmp_path / "case-1.json").is_file()


def test_an_exit_2_of_two_lines_fails_the_fuzzer(tmp_path, capsys, monkeypatch):
    def two_lines(argv):
        print("report.py: a message\nthat goes on", file=FUZZER.sys.stderr)
        return 2
    monkeypatch.setattr(FUZZER.cli, "main", two_lines)
    monkeypatch.setattr(FUZZER.compare, "main", two_lines)
    assert FUZZER.main(["--seed", "7", "--cases", "5", "--keep-going",
                        "--artifacts", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert "exit 2 with 2 lines on stderr" in captured.err
    assert "1 distinct failure(s)" in captured.out  # the same failure is listed once


def test_the_same_seed_replays_the_same_cases(monkeypatch):
    logs = []
    original = FUZZER.case

    def recorded(rng, work, log):
        ending = original(rng, work, log)
        logs.append(log[:-1])  # the mutations, without the temporary folder's name
        return ending
    monkeypatch.setattr(FUZZER, "case", recorded)
    for _ in range(2):
        assert FUZZER.main(["--seed", "3", "--cases", "4"]) == 0
    assert logs[:4] == logs[4:] and len(logs) == 8
