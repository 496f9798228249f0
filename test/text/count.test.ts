import { describe, expect, it } from 'vitest';
import { count } from '../../src/text/index.js';

describe('count', () => {
  it('gives the noun its number', () => {
    expect(count(1, 'request')).toBe('1 request');
    expect(count(0, 'request')).toBe('0 requests');
    expect(count(2, 'story', 'stories')).toBe('2 stories');
    expect(count(1, 'story', 'stories')).toBe('1 story');
  });
});
