using System.Globalization;
using System.Text.Json;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>
/// Reads a load-shape file (--config), in the spirit of NBomber's JSON config:
/// <code>
/// { "ReportingInterval": "00:00:05",
///   "LoadSimulationsSettings": [ { "KeepConstant": [4, "00:00:45"] }, { "RampingInject": [50, "00:00:01", "00:01:00"] } ] }
/// </code>
/// KeepConstant / RampingConstant take [copies, during]; Inject / RampingInject take [rate, interval, during]
/// (rate requests per interval). Any problem is a <see cref="FormatException"/> naming the file and the fault.
/// </summary>
public static class LoadShapeConfig
{
    private static readonly TimeSpan MaxDuration = TimeSpan.FromHours(2);
    private static readonly TimeSpan DefaultReportingInterval = TimeSpan.FromSeconds(5);

    public static LoadShape Load(string path)
    {
        string text;
        try
        {
            text = File.ReadAllText(path);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new FormatException($"cannot read config '{path}': {e.Message}", e);
        }
        return Parse(text, path);
    }

    public static LoadShape Parse(string json, string source)
    {
        try
        {
            using var document = JsonDocument.Parse(json, new JsonDocumentOptions { CommentHandling = JsonCommentHandling.Skip, AllowTrailingCommas = true });
            return Read(document.RootElement);
        }
        catch (JsonException e)
        {
            throw new FormatException($"config '{source}' is not valid JSON: {e.Message}", e);
        }
        catch (FormatException e)
        {
            throw new FormatException($"config '{source}': {e.Message}", e);
        }
    }

    private static LoadShape Read(JsonElement root)
    {
        if (root.ValueKind != JsonValueKind.Object)
        {
            throw new FormatException("the top level must be an object");
        }
        var interval = DefaultReportingInterval;
        JsonElement? simulations = null;
        foreach (var property in root.EnumerateObject())
        {
            if (property.NameEquals("ReportingInterval"))
            {
                interval = ReadDuration(property.Value, "ReportingInterval");
            }
            else if (property.NameEquals("LoadSimulationsSettings"))
            {
                simulations = property.Value;
            }
            else
            {
                throw new FormatException($"unknown setting '{property.Name}' (expected ReportingInterval, LoadSimulationsSettings)");
            }
        }
        if (simulations is not { ValueKind: JsonValueKind.Array } array || array.GetArrayLength() == 0)
        {
            throw new FormatException("LoadSimulationsSettings must be a non-empty array");
        }

        var steps = array.EnumerateArray().Select((element, i) => ReadSimulation(element, $"LoadSimulationsSettings[{i}]")).ToList();
        if (steps.Any(s => s.IsOpen) && steps.Any(s => !s.IsOpen))
        {
            throw new FormatException("LoadSimulationsSettings mixes closed (KeepConstant, RampingConstant) and open (Inject, RampingInject) simulations");
        }
        var total = steps.Aggregate(TimeSpan.Zero, (sum, s) => sum + s.During);
        if (total > MaxDuration)
        {
            throw new FormatException($"the load shape lasts {total}, more than the {MaxDuration} this runner allows");
        }
        return new LoadShape(steps, interval);
    }

    private static LoadSimulation ReadSimulation(JsonElement element, string where)
    {
        if (element.ValueKind != JsonValueKind.Object || element.EnumerateObject().Count() != 1)
        {
            throw new FormatException($"{where} must be an object with exactly one of KeepConstant, RampingConstant, Inject, RampingInject");
        }
        var property = element.EnumerateObject().Single();
        var values = property.Value.ValueKind == JsonValueKind.Array ? property.Value.EnumerateArray().ToArray() : [];
        var name = $"{where}.{property.Name}";
        return property.Name switch
        {
            "KeepConstant" => new KeepConstant(ReadCopies(values, name), ReadDuration(values[1], name)),
            "RampingConstant" => new RampingConstant(ReadCopies(values, name), ReadDuration(values[1], name)),
            "Inject" => new Inject(ReadRate(values, name), ReadDuration(values[2], name)),
            "RampingInject" => new RampingInject(ReadRate(values, name), ReadDuration(values[2], name)),
            _ => throw new FormatException($"{where}: unknown simulation '{property.Name}' (expected KeepConstant, RampingConstant, Inject, RampingInject)"),
        };
    }

    private static int ReadCopies(JsonElement[] values, string name)
    {
        if (values.Length != 2 || !values[0].TryGetInt32(out var copies) || copies < 0 || copies > 100_000)
        {
            throw new FormatException($"{name} must be [copies (0..100000), \"hh:mm:ss\"]");
        }
        return copies;
    }

    /// <summary>NBomber's [rate, interval, during] as requests per second.</summary>
    private static double ReadRate(JsonElement[] values, string name)
    {
        if (values.Length != 3 || !values[0].TryGetDouble(out var rate) || rate < 0 || rate > 1_000_000)
        {
            throw new FormatException($"{name} must be [rate (0..1000000), \"interval\", \"during\"]");
        }
        return rate / ReadDuration(values[1], name).TotalSeconds;
    }

    private static TimeSpan ReadDuration(JsonElement value, string name)
    {
        if (value.ValueKind != JsonValueKind.String
            || !TimeSpan.TryParseExact(value.GetString(), "c", CultureInfo.InvariantCulture, out var duration)
            || duration <= TimeSpan.Zero)
        {
            throw new FormatException($"{name}: expected a positive duration \"hh:mm:ss\", got {value.GetRawText()}");
        }
        return duration;
    }
}
