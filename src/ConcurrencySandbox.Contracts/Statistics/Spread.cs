namespace ConcurrencySandbox.Contracts.Statistics;

/// <summary>Median, minimum and maximum of a set of measurements.</summary>
public sealed record Spread(double Median, double Min, double Max);
