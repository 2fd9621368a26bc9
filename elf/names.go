package elf

import "fmt"

// Names of the numbered things in a cubin, for dumps and diagnostics. The
// section-type, EIATTR and EIFMT spellings are those CUDA 11.8 cuobjdump
// prints; EIATTR codes past 0x40 and the R_CUDA table come from nvlink 13.0
// (which keeps the older codes unchanged).

// SectionTypeName returns the name of a section type: the standard ELF name
// or the CUDA name cuobjdump uses (CUDA_INFO, CUDA_CONSTANT_B2, ...). Unknown
// processor types print as LOPROC+0xN, others as their number.
func SectionTypeName(t uint32) string {
	switch t {
	case SHTNull:
		return "NULL"
	case SHTProgbits:
		return "PROGBITS"
	case SHTSymtab:
		return "SYMTAB"
	case SHTStrtab:
		return "STRTAB"
	case SHTRela:
		return "RELA"
	case SHTNobits:
		return "NOBITS"
	case SHTRel:
		return "REL"
	case SHTSymtabShndx:
		return "SYMTAB_SHNDX"
	case SHTCudaInfo:
		return "CUDA_INFO"
	case SHTCudaCallgraph:
		return "CUDA_CALLGRAPH"
	case SHTCudaPrototype:
		return "CUDA_PROTOTYPE"
	case SHTCudaResolvedRela:
		return "CUDA_RESOLVED_RELA"
	case SHTCudaMetadata:
		return "CUDA_METADATA"
	case SHTCudaGlobal:
		return "CUDA_GLOBAL"
	case SHTCudaGlobalInit:
		return "CUDA_GLOBAL_INIT"
	case SHTCudaLocal:
		return "CUDA_LOCAL"
	case SHTCudaShared:
		return "CUDA_SHARED"
	case SHTCudaRelAction:
		return "CUDA_RELOCINFO"
	case SHTCudaUft:
		return "CUDA_UFT"
	case SHTCudaUftEntry:
		return "CUDA_UFT_ENTRY"
	case SHTCudaUdt:
		return "CUDA_UDT"
	case SHTCudaUdtEntry:
		return "CUDA_UDT_ENTRY"
	case SHTCudaSharedReserved:
		return "CUDA_SHARED_RESERVED"
	case SHTCudaCompat:
		return "CUDA_COMPAT"
	}
	if t >= SHTCudaConstant0 && t <= SHTCudaConstant0+17 {
		return fmt.Sprintf("CUDA_CONSTANT_B%d", t-SHTCudaConstant0)
	}
	if t >= 0x70000000 && t <= 0x7FFFFFFF {
		return fmt.Sprintf("LOPROC+0x%x", t-0x70000000)
	}
	return fmt.Sprintf("0x%x", t)
}

// relocNames is the R_CUDA numbering (r_type 0..116).
var relocNames = [...]string{
	"R_CUDA_NONE", "R_CUDA_32", "R_CUDA_64", "R_CUDA_G32", "R_CUDA_G64",
	"R_CUDA_ABS32_26", "R_CUDA_TEX_HEADER_INDEX", "R_CUDA_SAMP_HEADER_INDEX",
	"R_CUDA_SURF_HW_DESC", "R_CUDA_SURF_HW_SW_DESC", "R_CUDA_ABS32_LO_26",
	"R_CUDA_ABS32_HI_26", "R_CUDA_ABS32_23", "R_CUDA_ABS32_LO_23",
	"R_CUDA_ABS32_HI_23", "R_CUDA_ABS24_26", "R_CUDA_ABS24_23",
	"R_CUDA_ABS16_26", "R_CUDA_ABS16_23", "R_CUDA_TEX_SLOT", "R_CUDA_SAMP_SLOT",
	"R_CUDA_SURF_SLOT", "R_CUDA_TEX_BINDLESSOFF13_32",
	"R_CUDA_TEX_BINDLESSOFF13_47", "R_CUDA_CONST_FIELD19_28",
	"R_CUDA_CONST_FIELD19_23", "R_CUDA_TEX_SLOT9_49", "R_CUDA_6_31",
	"R_CUDA_2_47", "R_CUDA_TEX_BINDLESSOFF13_41", "R_CUDA_TEX_BINDLESSOFF13_45",
	"R_CUDA_FUNC_DESC32_23", "R_CUDA_FUNC_DESC32_LO_23",
	"R_CUDA_FUNC_DESC32_HI_23", "R_CUDA_FUNC_DESC_32", "R_CUDA_FUNC_DESC_64",
	"R_CUDA_CONST_FIELD21_26", "R_CUDA_QUERY_DESC21_37",
	"R_CUDA_CONST_FIELD19_26", "R_CUDA_CONST_FIELD21_23",
	"R_CUDA_PCREL_IMM24_26", "R_CUDA_PCREL_IMM24_23", "R_CUDA_ABS32_20",
	"R_CUDA_ABS32_LO_20", "R_CUDA_ABS32_HI_20", "R_CUDA_ABS24_20",
	"R_CUDA_ABS16_20", "R_CUDA_FUNC_DESC32_20", "R_CUDA_FUNC_DESC32_LO_20",
	"R_CUDA_FUNC_DESC32_HI_20", "R_CUDA_CONST_FIELD19_20",
	"R_CUDA_BINDLESSOFF13_36", "R_CUDA_SURF_HEADER_INDEX",
	"R_CUDA_INSTRUCTION64", "R_CUDA_CONST_FIELD21_20", "R_CUDA_ABS32_32",
	"R_CUDA_ABS32_LO_32", "R_CUDA_ABS32_HI_32", "R_CUDA_ABS47_34",
	"R_CUDA_ABS16_32", "R_CUDA_ABS24_32", "R_CUDA_FUNC_DESC32_32",
	"R_CUDA_FUNC_DESC32_LO_32", "R_CUDA_FUNC_DESC32_HI_32",
	"R_CUDA_CONST_FIELD19_40", "R_CUDA_BINDLESSOFF14_40",
	"R_CUDA_CONST_FIELD21_38", "R_CUDA_INSTRUCTION128",
	"R_CUDA_YIELD_OPCODE9_0", "R_CUDA_YIELD_CLEAR_PRED4_87", "R_CUDA_32_LO",
	"R_CUDA_32_HI", "R_CUDA_UNUSED_CLEAR32", "R_CUDA_UNUSED_CLEAR64",
	"R_CUDA_ABS24_40", "R_CUDA_ABS55_16_34", "R_CUDA_8_0", "R_CUDA_8_8",
	"R_CUDA_8_16", "R_CUDA_8_24", "R_CUDA_8_32", "R_CUDA_8_40", "R_CUDA_8_48",
	"R_CUDA_8_56", "R_CUDA_G8_0", "R_CUDA_G8_8", "R_CUDA_G8_16", "R_CUDA_G8_24",
	"R_CUDA_G8_32", "R_CUDA_G8_40", "R_CUDA_G8_48", "R_CUDA_G8_56",
	"R_CUDA_FUNC_DESC_8_0", "R_CUDA_FUNC_DESC_8_8", "R_CUDA_FUNC_DESC_8_16",
	"R_CUDA_FUNC_DESC_8_24", "R_CUDA_FUNC_DESC_8_32", "R_CUDA_FUNC_DESC_8_40",
	"R_CUDA_FUNC_DESC_8_48", "R_CUDA_FUNC_DESC_8_56", "R_CUDA_ABS20_44",
	"R_CUDA_SAMP_HEADER_INDEX_0", "R_CUDA_UNIFIED", "R_CUDA_UNIFIED_32",
	"R_CUDA_UNIFIED_8_0", "R_CUDA_UNIFIED_8_8", "R_CUDA_UNIFIED_8_16",
	"R_CUDA_UNIFIED_8_24", "R_CUDA_UNIFIED_8_32", "R_CUDA_UNIFIED_8_40",
	"R_CUDA_UNIFIED_8_48", "R_CUDA_UNIFIED_8_56", "R_CUDA_UNIFIED32_LO_32",
	"R_CUDA_UNIFIED32_HI_32", "R_CUDA_ABS56_16_34", "R_CUDA_CONST_FIELD22_37",
	"R_CUDA_NONE_LAST",
}

// RelocAttrBase marks relocation types of the attribute table, which apply
// to .nv.info records and reuse the standard names: r_type 0x10000+n.
const RelocAttrBase = 0x10000

// RelocTypeName returns the R_CUDA name of a relocation type. Attribute-table
// types (0x10000+n, n <= 64) get the standard name of n with an "ATTR:"
// prefix; unknown types print as R_CUDA_0xN.
func RelocTypeName(t uint32) string {
	if int(t) < len(relocNames) {
		return relocNames[t]
	}
	if t >= RelocAttrBase && t <= RelocAttrBase+64 {
		return "ATTR:" + relocNames[t-RelocAttrBase]
	}
	return fmt.Sprintf("R_CUDA_0x%x", t)
}

// attrNames is the EIATTR numbering (codes 0..0x60).
var attrNames = [...]string{
	"EIATTR_ERROR", "EIATTR_PAD", "EIATTR_IMAGE_SLOT", "EIATTR_JUMPTABLE_RELOCS",
	"EIATTR_CTAIDZ_USED", "EIATTR_MAX_THREADS", "EIATTR_IMAGE_OFFSET",
	"EIATTR_IMAGE_SIZE", "EIATTR_TEXTURE_NORMALIZED", "EIATTR_SAMPLER_INIT",
	"EIATTR_PARAM_CBANK", "EIATTR_SMEM_PARAM_OFFSETS",
	"EIATTR_CBANK_PARAM_OFFSETS", "EIATTR_SYNC_STACK", "EIATTR_TEXID_SAMPID_MAP",
	"EIATTR_EXTERNS", "EIATTR_REQNTID", "EIATTR_FRAME_SIZE",
	"EIATTR_MIN_STACK_SIZE", "EIATTR_SAMPLER_FORCE_UNNORMALIZED",
	"EIATTR_BINDLESS_IMAGE_OFFSETS", "EIATTR_BINDLESS_TEXTURE_BANK",
	"EIATTR_BINDLESS_SURFACE_BANK", "EIATTR_KPARAM_INFO",
	"EIATTR_SMEM_PARAM_SIZE", "EIATTR_CBANK_PARAM_SIZE",
	"EIATTR_QUERY_NUMATTRIB", "EIATTR_MAXREG_COUNT",
	"EIATTR_EXIT_INSTR_OFFSETS", "EIATTR_S2RCTAID_INSTR_OFFSETS",
	"EIATTR_CRS_STACK_SIZE", "EIATTR_NEED_CNP_WRAPPER", "EIATTR_NEED_CNP_PATCH",
	"EIATTR_EXPLICIT_CACHING", "EIATTR_ISTYPEP_USED", "EIATTR_MAX_STACK_SIZE",
	"EIATTR_SUQ_USED", "EIATTR_LD_CACHEMOD_INSTR_OFFSETS",
	"EIATTR_LOAD_CACHE_REQUEST", "EIATTR_ATOM_SYS_INSTR_OFFSETS",
	"EIATTR_COOP_GROUP_INSTR_OFFSETS", "EIATTR_COOP_GROUP_MASK_REGIDS",
	"EIATTR_SW1850030_WAR", "EIATTR_WMMA_USED", "EIATTR_HAS_PRE_V10_OBJECT",
	"EIATTR_ATOMF16_EMUL_INSTR_OFFSETS", "EIATTR_ATOM16_EMUL_INSTR_REG_MAP",
	"EIATTR_REGCOUNT", "EIATTR_SW2393858_WAR",
	"EIATTR_INT_WARP_WIDE_INSTR_OFFSETS", "EIATTR_SHARED_SCRATCH",
	"EIATTR_STATISTICS", "EIATTR_INDIRECT_BRANCH_TARGETS",
	"EIATTR_SW2861232_WAR", "EIATTR_SW_WAR", "EIATTR_CUDA_API_VERSION",
	"EIATTR_NUM_MBARRIERS", "EIATTR_MBARRIER_INSTR_OFFSETS",
	"EIATTR_COROUTINE_RESUME_ID_OFFSETS", "EIATTR_SAM_REGION_STACK_SIZE",
	"EIATTR_PER_REG_TARGET_PERF_STATS", "EIATTR_CTA_PER_CLUSTER",
	"EIATTR_EXPLICIT_CLUSTER", "EIATTR_MAX_CLUSTER_RANK", "EIATTR_INSTR_REG_MAP",
	"EIATTR_RESERVED_SMEM_USED", "EIATTR_RESERVED_SMEM_0_SIZE",
	"EIATTR_UCODE_SECTION_DATA", "EIATTR_UNUSED_LOAD_BYTE_OFFSET",
	"EIATTR_KPARAM_INFO_V2", "EIATTR_SYSCALL_OFFSETS",
	"EIATTR_SW_WAR_MEMBAR_SYS_INSTR_OFFSETS", "EIATTR_GRAPHICS_GLOBAL_CBANK",
	"EIATTR_SHADER_TYPE", "EIATTR_VRC_CTA_INIT_COUNT", "EIATTR_TOOLS_PATCH_FUNC",
	"EIATTR_NUM_BARRIERS", "EIATTR_TEXMODE_INDEPENDENT",
	"EIATTR_PERF_STATISTICS", "EIATTR_AT_ENTRY_FRAGEMENTS",
	"EIATTR_SPARSE_MMA_MASK", "EIATTR_TCGEN05_1CTA_USED",
	"EIATTR_TCGEN05_2CTA_USED", "EIATTR_GEN_ERRBAR_AT_EXIT",
	"EIATTR_REG_RECONFIG", "EIATTR_ANNOTATIONS", "EIATTR_UNKNOWN",
	"EIATTR_STACK_CANARY_TRAP_OFFSETS", "EIATTR_STUB_FUNCTION_KIND",
	"EIATTR_LOCAL_CTA_ASYNC_STORE_OFFSETS", "EIATTR_MERCURY_FINALIZER_OPTIONS",
	"EIATTR_BLOCKS_ARE_CLUSTERS", "EIATTR_SANITIZE", "EIATTR_SYSCALLS_FALLBACK",
	"EIATTR_CUDA_REQ", "EIATTR_MERCURY_ISA_VERSION", "EIATTR_ERROR_LAST",
}

// AttrName returns the EIATTR name of an .nv.info attribute code.
func AttrName(code uint8) string {
	if int(code) < len(attrNames) {
		return attrNames[code]
	}
	return fmt.Sprintf("EIATTR_0x%x", code)
}

// FormatName returns the EIFMT name of an .nv.info record format.
func FormatName(f uint8) string {
	switch f {
	case EIFmtNVal:
		return "EIFMT_NVAL"
	case EIFmtBVal:
		return "EIFMT_BVAL"
	case EIFmtHVal:
		return "EIFMT_HVAL"
	case EIFmtSVal:
		return "EIFMT_SVAL"
	}
	return fmt.Sprintf("EIFMT_%d", f)
}

// SymbolRefs returns the payload offsets of the words of a record that hold
// symbol indices: every word of EIATTR_EXTERNS, the first word of the
// attributes keyed by a symbol (FRAME_SIZE, REGCOUNT, MIN/MAX_STACK_SIZE,
// PARAM_CBANK and the image/sampler attributes). cuobjdump names the symbol
// for FRAME_SIZE, MIN_STACK_SIZE, REGCOUNT and EXTERNS; the corpus shows
// MAX_STACK_SIZE and PARAM_CBANK carry a function or section symbol there;
// the rest follow nvlink's remapping list. KPARAM_INFO's first word is a
// parameter index, not a symbol.
func (a *Attr) SymbolRefs() []int {
	if a.Format != EIFmtSVal || len(a.Payload) < 4 {
		return nil
	}
	switch a.Code {
	case EIAttrExterns:
		offs := make([]int, len(a.Payload)/4)
		for i := range offs {
			offs[i] = 4 * i
		}
		return offs
	case 0x02, 0x06, 0x07, 0x08, 0x09, EIAttrParamCbank, EIAttrFrameSize,
		EIAttrMinStackSize, EIAttrSamplerForceUnnormalized,
		EIAttrBindlessImageOffsets, EIAttrMaxStackSize, EIAttrLoadCacheRequest,
		EIAttrRegcount, EIAttrSamRegionStackSize:
		return []int{0}
	}
	return nil
}

// SymbolName returns the name of symbol i, or "" when i is out of range.
// Section symbols with no name of their own take their section's name, as
// cuobjdump prints them.
func (f *File) SymbolName(i uint32) string {
	if int(i) >= len(f.Symbols) {
		return ""
	}
	s := &f.Symbols[i]
	if s.Name == "" && s.Type() == STTSection && (s.RawShndx < SHNLoReserve || s.RawShndx == SHNXindex) && int(s.Shndx) < len(f.Sections) {
		return f.SecName(int(s.Shndx))
	}
	return s.Name
}
