using System.Globalization;
using System.Text.Json;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.LoadTests.Hosting;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Matrix;

/// <summary>
/// matrix.json as <c>report</c> reads it back: what <see cref="MatrixReport.Write"/> needs to render every page of a
/// matrix folder again (each core count's sweep rows and where its fan-out's summary.json is), and what the matrix
/// command knew of its run (options, setup, machine, command line). The verdict, the flags and each fan-out's figures
/// are written beside it for a reader, and rendered again from these.
/// </summary>
internal sealed record MatrixFile(
    int Version, MatrixOptions Options, ContainerSetup? Setup, SummaryMachine Machine, string CommandLine, int DelayMs,
    IReadOnlyList<MatrixFileRun> Runs, string? Partial)
{
    public const string FileName = "matrix.json";

    /// <remarks>1: the first with a version, and with the machine, the command line and the fan-out's delay, so <c>report</c> can render it again.</remarks>
    public const int CurrentVersion = 1;

    /// <summary>How matrix.json is written and read: the web defaults, indented.</summary>
    public static JsonSerializerOptions Json { get; } = new(JsonSerializerDefaults.Web) { WriteIndented = true };

    /// <summary>Reading is strict: a member the record needs may not be missing, nor null where it allows none.</summary>
    private static JsonSerializerOptions Strict { get; } = new(Json) { RespectNullableAnnotations = true, RespectRequiredConstructorParameters = true };

    /// <summary>
    /// Reads a matrix.json; throws <see cref="InvalidDataException"/> with one line naming the version this runner reads
    /// when the file is of another version (one written before matrix.json had a version, too), or is not a matrix.json.
    /// </summary>
    /// <param name="named">How the line names the file ("'runs/matrix.json'").</param>
    public static MatrixFile Read(string path, string named)
    {
        string NotOne(string why) => $"{named} is not a matrix.json ({why}); this runner reads matrix.json version {CurrentVersion}";
        try
        {
            var json = File.ReadAllText(path);
            using (var document = JsonDocument.Parse(json))
            {
                var root = document.RootElement;
                if (root.ValueKind != JsonValueKind.Object)
                {
                    throw new InvalidDataException(NotOne("not a JSON object"));
                }
                if (!root.TryGetProperty("version", out var version))
                {
                    throw new InvalidDataException(root.TryGetProperty("options", out _) && root.TryGetProperty("runs", out _)
                        ? $"{named} holds a matrix.json written before matrix.json had a version; this runner reads version {CurrentVersion} (run the matrix again with this runner)"
                        : NotOne("no version member"));
                }
                if (version.ValueKind != JsonValueKind.Number)
                {
                    throw new InvalidDataException(NotOne("its version is not a number"));
                }
                if (!version.TryGetInt32(out var number) || number != CurrentVersion)
                {
                    throw new InvalidDataException($"{named} holds a matrix.json of version {version.GetRawText()}; this runner reads version {CurrentVersion.ToString(CultureInfo.InvariantCulture)} (run the matrix again with this runner)");
                }
            }
            return JsonSerializer.Deserialize<MatrixFile>(json, Strict) ?? throw new InvalidDataException(NotOne("null"));
        }
        catch (JsonException e)
        {
            throw new InvalidDataException(NotOne($"unreadable: {e.Message.ReplaceLineEndings(" ")}"));
        }
    }

    /// <summary>
    /// Renders every page of the matrix whose matrix.json is <paramref name="path"/> into <paramref name="folder"/> through
    /// <see cref="MatrixReport.Write"/>, the matrix command's own: each fan-out's report from its summary.json, worded by this
    /// build (<see cref="RunAnalysis.Reworded"/>), its verdicts judged again. Returns what <c>--runs</c> compares of it.
    /// </summary>
    public static Runs.RunResult Render(string path, string named, string folder)
    {
        var file = Read(path, named);
        var from = Path.GetDirectoryName(Path.GetFullPath(path))!;
        List<CoreCountRun> runs =
        [
            .. file.Runs.Select(r => new CoreCountRun(r.Cpus, r.SkippedBecause, r.ApiProcessorCount, r.Sweep, r.BreakEvenAmount,
                r.FanOut is { } fanOut ? RunAnalysis.Reworded(ReportFolder.ReadSummary(Path.Combine(from, fanOut.Summary), $"'{Path.Combine(from, fanOut.Summary)}'")) : null,
                r.Container, r.Bracket)),
        ];
        var report = new MatrixReport(folder, file.Options, file.Setup, file.DelayMs, file.Machine, file.CommandLine);
        var verdict = report.Write(runs, file.Partial);
        return MatrixRunner.Headline(runs, verdict);
    }
}

/// <summary>A core count's part of matrix.json as <c>report</c> reads it: its sweep rows, break-even and where its fan-out's summary is.</summary>
internal sealed record MatrixFileRun(
    int Cpus, ContainerLimit? Container, string? SkippedBecause, int? ApiProcessorCount, IReadOnlyList<ComparisonRow> Sweep, double? BreakEvenAmount, BreakEvenBracket? Bracket,
    MatrixFileFanOut? FanOut);

/// <summary>Where a core count's fan-out summary.json is, relative to matrix.json.</summary>
internal sealed record MatrixFileFanOut(string Summary);
