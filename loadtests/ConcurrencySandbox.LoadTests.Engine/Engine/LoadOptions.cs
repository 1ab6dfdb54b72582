using System.Globalization;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>How every variant of a run is loaded: the shape, its name, and the per-request limits.</summary>
public sealed record LoadOptions(LoadShape Shape, string ProfileName, TimeSpan RequestTimeout, int MaxInFlight)
{
    /// <summary>The smoke profile: a check that the run works, which states figures but no verdict.</summary>
    public bool IsCheck => ProfileName == Profiles.Smoke;

    /// <summary>The shape in NBomber's words, e.g. "KeepConstant(4, 6 s), RampingInject(20/s, 45 s)".</summary>
    public string Describe() => string.Join(", ", Shape.Steps.Select(s =>
        string.Create(CultureInfo.InvariantCulture, $"{s.GetType().Name}({s.Target:0.##}{(s.IsOpen ? "/s" : "")}, {s.During.TotalSeconds:0.#} s)")));
}
