using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>The words a stopped run's report opens with (console, summary.md, summary.json, report.html and the live page alike).</summary>
public static class PartialRun
{
    /// <summary>"partial: stopped after variant sync step 2 of 5 (Ctrl+C or SIGTERM); finished before it: async".</summary>
    /// <param name="stepsClosed">The steps of the stopped variant that ended before the stop (its data up to there is in the report).</param>
    public static string Describe(string variant, int stepsClosed, int stepsPlanned, IReadOnlyList<string> finished) => Invariant(
        $"partial: stopped after variant {variant} step {stepsClosed} of {stepsPlanned} (Ctrl+C or SIGTERM); ")
        + (finished.Count == 0 ? "no variant finished before it" : $"finished before it: {string.Join(", ", finished)}");
}
