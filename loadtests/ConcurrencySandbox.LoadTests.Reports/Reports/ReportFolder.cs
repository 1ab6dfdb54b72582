using System.Globalization;
using System.Text.Json;
using ConcurrencySandbox.Contracts.Reports;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>A report folder and its summary.json, as <c>compare</c> and <c>report</c> read it back.</summary>
public sealed record ReportFolder(string Folder, RunSummary Summary)
{
    /// <summary>The machine in a few words: logical cores, the API's processor count when known, the runtime.</summary>
    public string Machine => $"{Summary.Machine.LogicalCores} logical cores{(Summary.ApiProcessorCount is { } n ? $", API ProcessorCount {n}" : "")}, {Summary.Machine.Runtime}";

    /// <summary>
    /// Reads a report folder; throws <see cref="InvalidDataException"/> with one line when it is not one, or when its
    /// summary.json is of another schema version than this runner's (naming both) or does not match its layout.
    /// </summary>
    public static ReportFolder Read(string folder)
    {
        var path = Path.Combine(folder, ReportWriter.SummaryFileName);
        if (!File.Exists(path))
        {
            throw new InvalidDataException($"'{folder}' is not a report folder (no {ReportWriter.SummaryFileName})");
        }
        return new ReportFolder(folder, ReadSummary(path, $"'{folder}'"));
    }

    /// <summary>
    /// Reads a summary.json file; throws <see cref="InvalidDataException"/> with one line naming the version this runner
    /// reads when the file is of another version, or is not a summary at all.
    /// </summary>
    /// <param name="named">How the line names the file ("'runs/a'", "'x/summary.json'").</param>
    public static RunSummary ReadSummary(string path, string named)
    {
        string NotOne(string why) => $"{named} is not a runner summary ({why}); this runner reads summary.json version {RunSummary.CurrentVersion}";
        try
        {
            var json = File.ReadAllText(path);
            var version = RunSummary.VersionOf(json);
            if (version != RunSummary.CurrentVersion)
            {
                throw new InvalidDataException(version is null
                    ? NotOne("no version member")
                    : $"{named} holds a summary.json of version {version.Value.ToString(CultureInfo.InvariantCulture)}; this runner reads version {RunSummary.CurrentVersion} (run the experiment again with this runner)");
            }
            return RunSummary.Parse(json);
        }
        catch (JsonException e)
        {
            throw new InvalidDataException(NotOne($"unreadable: {e.Message.ReplaceLineEndings(" ")}"));
        }
    }
}
