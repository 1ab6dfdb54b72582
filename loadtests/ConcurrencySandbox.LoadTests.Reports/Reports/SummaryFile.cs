using System.Globalization;
using System.Text.Json;
using ConcurrencySandbox.Contracts.Reports;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>A report folder's summary.json as <c>compare</c> reads it back.</summary>
public sealed record SummaryFile(string Folder, RunSummary Summary)
{
    /// <summary>The machine in a few words: logical cores, the API's processor count when known, the runtime.</summary>
    public string Machine => $"{Summary.Machine.LogicalCores} logical cores{(Summary.ApiProcessorCount is { } n ? $", API ProcessorCount {n}" : "")}, {Summary.Machine.Runtime}";

    /// <summary>
    /// Reads a report folder; throws <see cref="InvalidDataException"/> with one line when it is not one, or when its
    /// summary.json is of another schema version than this runner's (naming both) or does not match its layout.
    /// </summary>
    public static SummaryFile Read(string folder)
    {
        var path = Path.Combine(folder, "summary.json");
        if (!File.Exists(path))
        {
            throw new InvalidDataException($"'{folder}' is not a report folder (no summary.json)");
        }
        try
        {
            var json = File.ReadAllText(path);
            var version = RunSummary.SchemaVersionOf(json);
            if (version != RunSummary.CurrentSchemaVersion)
            {
                throw new InvalidDataException(
                    $"'{folder}' holds a summary.json of schema version {version?.ToString(CultureInfo.InvariantCulture) ?? "none"}; this runner reads schema version {RunSummary.CurrentSchemaVersion} (run the experiment again with this runner)");
            }
            return new SummaryFile(folder, RunSummary.Parse(json));
        }
        catch (JsonException e)
        {
            throw new InvalidDataException($"'{folder}' is not a report folder (summary.json unreadable: {e.Message.ReplaceLineEndings(" ")})");
        }
    }
}
