using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>The words a stopped run's report opens with (console, summary.md, summary.json, report.html and the live page alike).</summary>
public static class PartialRun
{
    /// <summary>"partial: stopped after variant sync step 2 of 5 (Ctrl+C or SIGTERM); finished before it: async".</summary>
    /// <param name="stepsClosed">The steps of the stopped variant that ended before the stop (its data up to there is in the report).</param>
    public static string Describe(string variant, int stepsClosed, int stepsPlanned, IReadOnlyList<string> finished) =>
        Describe(Where(variant, stepsClosed, stepsPlanned), finished);

    /// <summary>
    /// "partial: stopped in the fan-out on 2 core(s), after variant async@2cpu step 1 of 5 (Ctrl+C or SIGTERM); finished
    /// before it: the compute sweep on 1 core(s)": a run of several parts (a matrix, a capacity search) stopped
    /// <paramref name="where"/>, with the parts that finished before it.
    /// </summary>
    /// <param name="part">What <paramref name="finished"/> counts, for the line that says none did ("variant", "step", "part").</param>
    public static string Describe(string where, IReadOnlyList<string> finished, string part = "variant") =>
        $"partial: stopped {where} (Ctrl+C or SIGTERM); "
        + (finished.Count == 0 ? $"no {part} finished before it" : $"finished before it: {string.Join(", ", finished)}");

    /// <summary>"partial: still running; finished so far: sync, async": a report written while its run goes on (a run killed outright leaves it so).</summary>
    public static string Running(IReadOnlyList<string> finished) =>
        $"partial: still running; {(finished.Count == 0 ? "no variant finished yet" : $"finished so far: {string.Join(", ", finished)}")}";

    /// <summary>"after variant sync step 2 of 5": where in an experiment the stop came.</summary>
    public static string Where(string variant, int stepsClosed, int stepsPlanned) =>
        Invariant($"after variant {variant} step {stepsClosed} of {stepsPlanned}");
}
