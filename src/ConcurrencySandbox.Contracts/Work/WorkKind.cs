namespace ConcurrencySandbox.Contracts.Work;

/// <summary>A unit of seed 004's work as the wire names it: its route segment (<c>/api/{name}/...</c>) and what its amount counts, the amount's query parameter.</summary>
public sealed record WorkKind(string Name, string AmountName)
{
    public static WorkKind Compute { get; } = new("compute", "cycles");

    public static WorkKind SpinWait { get; } = new("spinwait", "iterations");

    public static WorkKind Sleep { get; } = new("sleep", "milliseconds");
}
