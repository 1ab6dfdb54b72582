using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.HttpResults;

namespace ConcurrencySandbox.Validation;

/// <summary>
/// The errors found while reading declared values, keyed by the name the user sent, so one 400 answer (or one
/// start-up failure) names each bad value with its allowed range. Shared by every reader.
/// </summary>
public abstract class ValidationErrors
{
    // Created with the first error: a valid request (every request of a load test) allocates none.
    private Dictionary<string, string[]>? _errors;

    public bool IsValid => _errors is null;

    public IEnumerable<string> Messages => _errors?.Values.SelectMany(m => m) ?? [];

    /// <summary>Records a problem with one value, or a rule that spans values (for example a minimum above its maximum).</summary>
    public void Fail(string name, string message) => (_errors ??= new(StringComparer.Ordinal))[name] = [message];

    public bool Has(string name) => _errors?.ContainsKey(name) == true;

    /// <summary>The 400 application/problem+json answer naming every bad value.</summary>
    public ValidationProblem Problem(string title) =>
        TypedResults.ValidationProblem(_errors ?? [], detail: string.Join(" ", Messages), title: title);
}
