using System.Text.Json;

namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>One variant's headline figures as summary.json holds them.</summary>
public sealed record SummaryVariant(string Name, string Request, double MeanMs, double P99Ms, double RequestsPerSecond, int? PeakThreads, double? PeakLoadMeanMs);

/// <summary>What <c>compare</c> reads back from a report folder's summary.json.</summary>
public sealed record SummaryFile(string Folder, string Experiment, string Seed, string Profile, DateTimeOffset StartedAt, string Machine, string? CommandLine, IReadOnlyList<SummaryVariant> Variants)
{
    /// <summary>Written into summary.json so a later reader can tell which layout it holds.</summary>
    public const int SchemaVersion = 3;

    /// <summary>Reads a report folder; throws <see cref="InvalidDataException"/> with one line when it is not one.</summary>
    public static SummaryFile Read(string folder)
    {
        var path = Path.Combine(folder, "summary.json");
        if (!File.Exists(path))
        {
            throw new InvalidDataException($"'{folder}' is not a report folder (no summary.json)");
        }
        try
        {
            using var document = JsonDocument.Parse(File.ReadAllText(path));
            var root = document.RootElement;
            var machine = root.GetProperty("machine");
            var api = root.TryGetProperty("apiProcessorCount", out var p) && p.ValueKind == JsonValueKind.Number ? $", API ProcessorCount {p.GetInt32()}" : "";
            return new SummaryFile(
                folder,
                root.GetProperty("experiment").GetString()!,
                root.GetProperty("seed").GetString()!,
                root.GetProperty("profile").GetString()!,
                root.GetProperty("startedAt").GetDateTimeOffset(),
                $"{machine.GetProperty("logicalCores").GetInt32()} logical cores{api}, {machine.GetProperty("runtime").GetString()}",
                root.TryGetProperty("commandLine", out var c) ? c.GetString() : null,
                [.. root.GetProperty("variants").EnumerateArray().Select(v => new SummaryVariant(
                    v.GetProperty("name").GetString()!,
                    v.GetProperty("request").GetString()!,
                    v.GetProperty("meanMs").GetDouble(),
                    v.GetProperty("p99Ms").GetDouble(),
                    v.GetProperty("requestsPerSecond").GetDouble(),
                    OptionalNumber(v, "peakThreads") is { } t ? (int)t : null,
                    OptionalNumber(v, "peakLoadMeanMs")))]);
        }
        catch (Exception e) when (e is JsonException or KeyNotFoundException or InvalidOperationException or FormatException)
        {
            throw new InvalidDataException($"'{folder}' is not a report folder (summary.json unreadable: {e.Message.ReplaceLineEndings(" ")})");
        }
    }

    private static double? OptionalNumber(JsonElement element, string name) =>
        element.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.Number ? value.GetDouble() : null;
}
