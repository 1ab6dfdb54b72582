using System.Reflection;
using System.Reflection.Emit;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>A call one method's IL makes: the callee as "Namespace.Type.Method" and, when it is in the same module, its token.</summary>
internal sealed record ILCall(int ILOffset, string Callee, int? LocalToken);

/// <summary>A method's source position: the document and the line of a sequence point.</summary>
public sealed record SourceLine(string File, int Line);

/// <summary>
/// One module of the observed process read from disk with System.Reflection.Metadata: its methods' IL (the calls they
/// make), their custom attributes, and, when the portable PDB beside it matches it (its ID is the one the module's
/// debug directory names), the sequence points that turn an IL offset into a file and line.
/// </summary>
internal sealed class ModuleSource : IDisposable
{
    private static readonly Dictionary<short, OpCode> OpCodesByValue = typeof(OpCodes)
        .GetFields(BindingFlags.Public | BindingFlags.Static)
        .Select(f => (OpCode)f.GetValue(null)!)
        .ToDictionary(o => o.Value);

    private readonly PEReader _pe;
    private readonly MetadataReader _metadata;
    private readonly MetadataReaderProvider? _pdbProvider;
    private readonly MetadataReader? _pdb;

    private ModuleSource(string path, PEReader pe, MetadataReaderProvider? pdbProvider, string? pdbNote)
    {
        Path = path;
        _pe = pe;
        _metadata = pe.GetMetadataReader();
        _pdbProvider = pdbProvider;
        _pdb = pdbProvider?.GetMetadataReader();
        PdbNote = pdbNote;
    }

    public string Path { get; }

    /// <summary>Why there are no lines for this module (no PDB, a PDB that does not match), or null when there are.</summary>
    public string? PdbNote { get; }

    /// <summary>The module at <paramref name="path"/>, or null when it is not a readable managed module.</summary>
    public static ModuleSource? Open(string path)
    {
        if (!File.Exists(path))
        {
            return null;
        }
        var pe = new PEReader(File.OpenRead(path));
        try
        {
            if (!pe.HasMetadata)
            {
                pe.Dispose();
                return null;
            }
            var beside = System.IO.Path.ChangeExtension(path, ".pdb");
            // TryOpenAssociatedPortablePdb accepts a PDB only when its ID matches the module's CodeView entry.
            if (pe.TryOpenAssociatedPortablePdb(path, p => File.Exists(p) ? File.OpenRead(p) : null, out var provider, out _) && provider is not null)
            {
                return new ModuleSource(path, pe, provider, null);
            }
            var note = File.Exists(beside)
                ? $"the PDB beside {System.IO.Path.GetFileName(path)} does not match it (built from another compilation): names without lines"
                : $"{System.IO.Path.GetFileName(path)} ships no portable PDB: names without lines";
            return new ModuleSource(path, pe, null, note);
        }
        catch (BadImageFormatException)
        {
            pe.Dispose();
            return null;
        }
    }

    /// <summary>"Namespace.Type+Nested.Method" of a method defined in this module.</summary>
    public string MethodName(int token)
    {
        var method = _metadata.GetMethodDefinition(MethodHandle(token));
        return $"{TypeName(method.GetDeclaringType())}.{_metadata.GetString(method.Name)}";
    }

    /// <summary>
    /// The method a lambda or local function was written in: "&lt;Get&gt;b__1_0" on OrdersController (or on its closure
    /// class) is in OrdersController.Get; null for a method the developer named.
    /// </summary>
    public int? EnclosingMethod(int token)
    {
        var method = _metadata.GetMethodDefinition(MethodHandle(token));
        var name = _metadata.GetString(method.Name);
        var close = name.IndexOf('>', StringComparison.Ordinal);
        if (!name.StartsWith('<') || close < 0)
        {
            return null;
        }
        var enclosing = name[1..close];
        var type = method.GetDeclaringType();
        if (_metadata.GetString(_metadata.GetTypeDefinition(type).Name).StartsWith('<'))
        {
            type = _metadata.GetTypeDefinition(type).GetDeclaringType();
        }
        return _metadata.GetTypeDefinition(type).GetMethods()
            .Where(m => _metadata.GetString(_metadata.GetMethodDefinition(m).Name) == enclosing)
            .Select(m => (int?)MetadataTokens.GetToken(m))
            .FirstOrDefault();
    }

    /// <summary>The tokens of the methods defined in this module that have IL.</summary>
    public IEnumerable<int> Methods() => _metadata.MethodDefinitions
        .Where(m => _metadata.GetMethodDefinition(m).RelativeVirtualAddress != 0)
        .Select(m => MetadataTokens.GetToken(m));

    /// <summary>The calls in the method's IL from <paramref name="fromOffset"/> up to (not including) <paramref name="toOffset"/>.</summary>
    public IReadOnlyList<ILCall> Calls(int token, int fromOffset = 0, int toOffset = int.MaxValue)
    {
        var method = _metadata.GetMethodDefinition(MethodHandle(token));
        if (method.RelativeVirtualAddress == 0)
        {
            return [];
        }
        var il = _pe.GetMethodBody(method.RelativeVirtualAddress).GetILReader();
        var calls = new List<ILCall>();
        while (il.RemainingBytes > 0)
        {
            var offset = il.Offset;
            var value = (short)il.ReadByte();
            if (value == 0xFE)
            {
                value = (short)(0xFE00 | il.ReadByte());
            }
            if (!OpCodesByValue.TryGetValue(value, out var opCode))
            {
                break;
            }
            if (opCode.OperandType == OperandType.InlineMethod && opCode != OpCodes.Ldftn && opCode != OpCodes.Ldvirtftn)
            {
                var callee = il.ReadInt32();
                if (offset >= fromOffset && offset < toOffset)
                {
                    calls.Add(Call(offset, callee));
                }
                continue;
            }
            il.Offset += OperandSize(opCode, ref il);
        }
        return calls;
    }

    /// <summary>The statement (sequence point) the IL offset is in, with the offset where the next one starts; null without a matching PDB.</summary>
    public (SourceLine Line, int Start, int End)? Statement(int token, int ilOffset)
    {
        if (_pdb is null)
        {
            return null;
        }
        var points = _pdb.GetMethodDebugInformation(MethodHandle(token).ToDebugInformationHandle()).GetSequencePoints().ToList();
        var index = points.FindLastIndex(p => p.Offset <= Math.Max(0, ilOffset) && !p.IsHidden);
        if (index < 0)
        {
            index = points.FindIndex(p => !p.IsHidden);
            if (index < 0)
            {
                return null;
            }
        }
        var point = points[index];
        var end = points.Skip(index + 1).Select(p => p.Offset).Where(o => o > point.Offset).DefaultIfEmpty(int.MaxValue).First();
        return (new SourceLine(_pdb.GetString(_pdb.GetDocument(point.Document).Name), point.StartLine), point.Offset, end);
    }

    /// <summary>The line of the statement at <paramref name="ilOffset"/> in the method (0: its first statement).</summary>
    public SourceLine? LineOf(int token, int ilOffset) => Statement(token, ilOffset)?.Line;

    /// <summary>The attributes of the method, or of its declaring type, as (attribute type's full name, its first string argument or null).</summary>
    public IReadOnlyList<(string Attribute, string? Template)> Attributes(int token, bool ofDeclaringType)
    {
        var method = _metadata.GetMethodDefinition(MethodHandle(token));
        var attributes = ofDeclaringType ? _metadata.GetTypeDefinition(method.GetDeclaringType()).GetCustomAttributes() : method.GetCustomAttributes();
        var found = new List<(string, string?)>();
        foreach (var handle in attributes)
        {
            var attribute = _metadata.GetCustomAttribute(handle);
            var type = attribute.Constructor.Kind switch
            {
                HandleKind.MemberReference => TypeName(_metadata.GetMemberReference((MemberReferenceHandle)attribute.Constructor).Parent),
                HandleKind.MethodDefinition => TypeName(_metadata.GetMethodDefinition((MethodDefinitionHandle)attribute.Constructor).GetDeclaringType()),
                _ => "",
            };
            var blob = _metadata.GetBlobReader(attribute.Value);
            string? template = null;
            // ASP.NET Core MVC's route attributes: prolog 0x0001, then the template when the constructor takes one (a SerString; 0xFF for null).
            if (type.StartsWith("Microsoft.AspNetCore.Mvc.", StringComparison.Ordinal) && blob.Length > 4 && blob.ReadUInt16() == 1 && blob.RemainingBytes > 2)
            {
                template = blob.ReadSerializedString();
            }
            found.Add((type, template));
        }
        return found;
    }

    /// <summary>The source documents the PDB names, for the files present on this machine.</summary>
    public IReadOnlyList<string> Documents() => _pdb is null ? [] : [.. _pdb.Documents.Select(d => _pdb.GetString(_pdb.GetDocument(d).Name)).Where(File.Exists)];

    private ILCall Call(int offset, int token)
    {
        var handle = MetadataTokens.EntityHandle(token);
        switch (handle.Kind)
        {
            case HandleKind.MethodDefinition:
                return new ILCall(offset, MethodName(token), token);
            case HandleKind.MemberReference:
                var reference = _metadata.GetMemberReference((MemberReferenceHandle)handle);
                return new ILCall(offset, $"{TypeName(reference.Parent)}.{_metadata.GetString(reference.Name)}", null);
            case HandleKind.MethodSpecification:
                var generic = _metadata.GetMethodSpecification((MethodSpecificationHandle)handle).Method;
                return Call(offset, MetadataTokens.GetToken(generic));
            default:
                return new ILCall(offset, "?", null);
        }
    }

    private string TypeName(EntityHandle handle)
    {
        switch (handle.Kind)
        {
            case HandleKind.TypeDefinition:
                var definition = _metadata.GetTypeDefinition((TypeDefinitionHandle)handle);
                var declaring = definition.GetDeclaringType();
                return declaring.IsNil
                    ? Qualified(_metadata.GetString(definition.Namespace), _metadata.GetString(definition.Name))
                    : $"{TypeName(declaring)}+{_metadata.GetString(definition.Name)}";
            case HandleKind.TypeReference:
                var reference = _metadata.GetTypeReference((TypeReferenceHandle)handle);
                return reference.ResolutionScope.Kind == HandleKind.TypeReference
                    ? $"{TypeName(reference.ResolutionScope)}+{_metadata.GetString(reference.Name)}"
                    : Qualified(_metadata.GetString(reference.Namespace), _metadata.GetString(reference.Name));
            case HandleKind.TypeSpecification:
                // A generic instance: GENERICINST (CLASS|VALUETYPE) TypeDefOrRef args...; the generic type names it.
                var signature = _metadata.GetBlobReader(_metadata.GetTypeSpecification((TypeSpecificationHandle)handle).Signature);
                if (signature.ReadSignatureTypeCode() == SignatureTypeCode.GenericTypeInstance)
                {
                    signature.ReadSignatureTypeCode();
                    return TypeName(signature.ReadTypeHandle());
                }
                return "?";
            case HandleKind.MethodDefinition:
                return TypeName(_metadata.GetMethodDefinition((MethodDefinitionHandle)handle).GetDeclaringType());
            default:
                return "?";
        }
    }

    private static string Qualified(string ns, string name) => ns.Length == 0 ? name : $"{ns}.{name}";

    private static MethodDefinitionHandle MethodHandle(int token) => MetadataTokens.MethodDefinitionHandle(token & 0x00FFFFFF);

    private static int OperandSize(OpCode opCode, ref BlobReader il) => opCode.OperandType switch
    {
        OperandType.InlineNone => 0,
        OperandType.ShortInlineBrTarget or OperandType.ShortInlineI or OperandType.ShortInlineVar => 1,
        OperandType.InlineVar => 2,
        OperandType.InlineI8 or OperandType.InlineR => 8,
        OperandType.InlineSwitch => 4 * (int)il.ReadUInt32(),
        _ => 4,
    };

    public void Dispose()
    {
        _pdbProvider?.Dispose();
        _pe.Dispose();
    }
}
