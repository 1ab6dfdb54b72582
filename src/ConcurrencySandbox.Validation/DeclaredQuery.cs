using System.Globalization;
using System.Reflection;
using Microsoft.AspNetCore.Http;

namespace ConcurrencySandbox.Validation;

/// <summary>
/// An endpoint's query inputs as one positional record, so the handler's signature shows them typed, for example
/// <c>sealed record ContentionQuery(int HoldMs) : DeclaredQuery&lt;ContentionQuery&gt;</c>. The constructor takes the
/// endpoint's declared parameters (<see cref="QueryParameterEndpointExtensions.WithQueryParameters"/>) in declaration
/// order, by position because a name can depend on the route (work's amount is cycles, iterations or milliseconds);
/// <see cref="DeclaredQueryFilter"/> checks the pairing when the endpoint is built. An integer is a <see cref="long"/>
/// or an <see cref="int"/>, a number a <see cref="double"/>, a choice a <see cref="string"/> in its declared spelling;
/// a nullable member is null when the query leaves the parameter out, any other member takes the declared default.
/// </summary>
/// <remarks>
/// Minimal APIs bind it through <see cref="BindAsync"/> rather than <c>[AsParameters]</c>, whose per-member binding
/// fails on a non-number before any filter runs (a bare 400) and cannot know defaults read from configuration.
/// Binding never fails: the values of a bad query are placeholders that the handler never sees, because
/// <see cref="DeclaredQueryFilter"/> answers it with the 400 first.
/// </remarks>
public abstract record DeclaredQuery<TSelf>
    where TSelf : DeclaredQuery<TSelf>
{
    public static ValueTask<TSelf?> BindAsync(HttpContext context)
    {
        var declared = context.GetEndpoint()?.Metadata.GetMetadata<QueryParameterMetadata>()
            ?? throw new InvalidOperationException($"{typeof(TSelf).Name} is bound through the endpoint's query declarations: declare them with WithQueryParameters.");
        var reader = new QueryReader(context.Request.Query);
        var bound = DeclaredQueryBinding.Bind<TSelf>(reader, declared.Parameters);
        // The filter judges the query from this reading instead of parsing it a second time.
        context.Items[DeclaredQueryFilter.ReadingKey] = reader;
        return ValueTask.FromResult<TSelf?>(bound);
    }
}

/// <summary>How a <see cref="DeclaredQuery{TSelf}"/> record pairs with its declarations and is built from a query.</summary>
internal static class DeclaredQueryBinding
{
    /// <summary>Builds the record from <paramref name="reader"/>, which reads every declaration once, as the filter would.</summary>
    public static TSelf Bind<TSelf>(QueryReader reader, IReadOnlyList<QueryParameter> parameters)
    {
        var members = Shape<TSelf>.Members;
        var values = new object?[members.Length];
        for (var i = 0; i < members.Length; i++)
        {
            var value = reader.Read(parameters[i]);
            values[i] = members[i].Nullable && !reader.Sent(parameters[i])
                ? null
                : Convert.ChangeType(value, members[i].Type, CultureInfo.InvariantCulture);
        }

        return (TSelf)Shape<TSelf>.Constructor.Invoke(values);
    }

    /// <summary>Why <paramref name="record"/> cannot take <paramref name="parameters"/>, or null when it can.</summary>
    public static string? Mismatch(Type record, IReadOnlyList<QueryParameter> parameters)
    {
        var members = MembersOf(ConstructorOf(record));
        if (members.Length != parameters.Count)
        {
            return $"{record.Name} takes {members.Length} values but the endpoint declares {parameters.Count} ({string.Join(", ", parameters.Select(p => p.Name))}).";
        }

        for (var i = 0; i < members.Length; i++)
        {
            var type = members[i].Type;
            var fits = parameters[i] switch
            {
                IntegerParameter p when type == typeof(int) => p.Min >= int.MinValue && p.Max <= int.MaxValue,
                IntegerParameter => type == typeof(long),
                NumberParameter => type == typeof(double),
                ChoiceParameter => type == typeof(string),
                _ => false,
            };
            if (!fits)
            {
                return $"{record.Name}.{members[i].Name} ({type.Name}) cannot hold '{parameters[i].Name}', {parameters[i].AllowedRange}.";
            }
        }

        return null;
    }

    // A positional record has one public constructor; its copy constructor is protected.
    private static ConstructorInfo ConstructorOf(Type record) => record.GetConstructors().Single();

    private static (string Name, Type Type, bool Nullable)[] MembersOf(ConstructorInfo constructor)
    {
        var nullability = new NullabilityInfoContext();
        return [.. constructor.GetParameters().Select(p => (
            p.Name ?? string.Empty,
            Nullable.GetUnderlyingType(p.ParameterType) ?? p.ParameterType,
            Nullable.GetUnderlyingType(p.ParameterType) is not null || nullability.Create(p).WriteState == NullabilityState.Nullable))];
    }

    private static class Shape<TSelf>
    {
        public static readonly ConstructorInfo Constructor = ConstructorOf(typeof(TSelf));

        public static readonly (string Name, Type Type, bool Nullable)[] Members = MembersOf(Constructor);
    }
}
