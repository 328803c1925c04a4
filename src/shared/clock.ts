import { v7 as uuidv7 } from 'uuid';

/** One source of time for the whole process, injectable so tests can move it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Ids are UUIDv7: time-ordered, so sorting by id gives creation order for cursor paging. */
export interface IdGenerator {
  next(): string;
}

export const uuidV7Ids: IdGenerator = { next: () => uuidv7() };
