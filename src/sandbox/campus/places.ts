/**
 * Places of the sandbox campus: building and room search, resolving a location argument (building
 * code, room id or `"lat,lon"`) to a point, and great-circle distances between points.
 */
import { SANDBOX_BUILDINGS, floorOf, type SandboxBuilding } from './data/buildings.js';
import { textIndex } from './text-search.js';

export interface PlaceResult {
  id: string;
  nameWithSpace: string;
  fullNameWithSpace: string;
  labelPosition: { latitude: number; longitude: number };
  type: string;
  floor: { buildingCode: string; level: string };
  /** Sandbox extras on buildings (the real server may not send them): what it holds, its nearest neighbours. */
  description?: string;
  nearby?: Array<{ code: string; name: string; metres: number }>;
}

export interface Point {
  latitude: number;
  longitude: number;
  label: string;
  floor: string;
}

/** Most results one search returns; the real server pages long lists the same way. */
const MAX_RESULTS = 10;

function buildingResult(b: SandboxBuilding): PlaceResult {
  return {
    id: b.code,
    nameWithSpace: b.code,
    fullNameWithSpace: b.name,
    labelPosition: { latitude: b.latitude, longitude: b.longitude },
    type: 'building',
    floor: { buildingCode: b.code, level: b.floors[0] ?? '1' },
    ...(b.holds ? { description: b.holds } : {}),
    nearby: neighbours(b),
  };
}

const pointOf = (b: SandboxBuilding): Point => ({ latitude: b.latitude, longitude: b.longitude, label: b.name, floor: '1' });

const NEIGHBOURS = new Map<string, Array<{ code: string; name: string; metres: number }>>();

/** The three nearest other buildings, by straight-line distance; worked out once per building. */
function neighbours(b: SandboxBuilding): Array<{ code: string; name: string; metres: number }> {
  let near = NEIGHBOURS.get(b.code);
  if (!near) {
    near = SANDBOX_BUILDINGS.filter((o) => o.code !== b.code && o.name !== b.name)
      .map((o) => ({ code: o.code, name: o.name, metres: distanceMetres(pointOf(b), pointOf(o)) }))
      .sort((x, y) => x.metres - y.metres)
      .slice(0, 3);
    NEIGHBOURS.set(b.code, near);
  }
  return near;
}

function roomResult(b: SandboxBuilding, room: string, type: string): PlaceResult {
  return {
    id: `${b.code}-${room.replace(/\s+/g, '-')}`,
    nameWithSpace: `${b.code} ${room}`,
    fullNameWithSpace: `${b.name} ${room}`,
    labelPosition: { latitude: b.latitude, longitude: b.longitude },
    type,
    floor: { buildingCode: b.code, level: floorOf(room) },
  };
}

const words = (s: string): string[] => s.toLowerCase().match(/[a-z0-9]+/g) ?? [];

const BUILDING_INDEX = textIndex(SANDBOX_BUILDINGS, {
  code: { text: (b) => b.code, boost: 4 },
  name: { text: (b) => b.name, boost: 3 },
  holds: { text: (b) => b.holds ?? '' },
});

/**
 * Buildings and rooms matching the query (full text over code, name and what a building holds, with
 * typos and prefixes: text-search.ts); a room number the building lists narrows to that room.
 */
export function searchPlaces(query: string): PlaceResult[] {
  const q = words(query);
  const out: PlaceResult[] = [];
  for (const { item: b } of BUILDING_INDEX.search(query, MAX_RESULTS)) {
    const roomWanted = q.find((w) => b.rooms?.some(([r]) => r.toLowerCase() === w));
    const rooms = (b.rooms ?? []).filter(([r]) => !roomWanted || r.toLowerCase() === roomWanted);
    if (!roomWanted) out.push(buildingResult(b));
    for (const [room, type] of rooms.slice(0, roomWanted ? 1 : 3)) out.push(roomResult(b, room, type));
  }
  return out.slice(0, MAX_RESULTS);
}

/** Names of places matching the query (for `maps_list_possible_locations`). */
export function possibleLocations(query: string): string[] {
  return searchPlaces(query).map((p) => (p.type === 'building' ? p.fullNameWithSpace : p.nameWithSpace));
}

/** A building code, a room id (`GHC-4401` or `GHC 4401`) or `"lat,lon"`; null when unknown. */
export function resolvePoint(id: string): Point | null {
  const coords = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(id);
  if (coords) {
    const latitude = Number(coords[1]);
    const longitude = Number(coords[2]);
    if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return null;
    return { latitude, longitude, label: id.trim(), floor: '1' };
  }
  const [code, ...rest] = id.trim().split(/[-\s]+/);
  const b = SANDBOX_BUILDINGS.find((x) => x.code.toLowerCase() === (code ?? '').toLowerCase());
  if (!b) return null;
  const room = rest.join(' ');
  if (!room) return { latitude: b.latitude, longitude: b.longitude, label: b.name, floor: b.floors[0] ?? '1' };
  const known = b.rooms?.find(([r]) => r.toLowerCase() === room.toLowerCase());
  if (!known) return null;
  return { latitude: b.latitude, longitude: b.longitude, label: `${b.code} ${known[0]}`, floor: floorOf(known[0]) };
}

/** Haversine distance in metres, rounded. */
export function distanceMetres(a: Point, b: Point): number {
  const rad = Math.PI / 180;
  const dLat = (b.latitude - a.latitude) * rad;
  const dLon = (b.longitude - a.longitude) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dLon / 2) ** 2;
  return Math.round(2 * 6_371_000 * Math.asin(Math.sqrt(h)));
}
